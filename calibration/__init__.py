"""Pitwatch package (see README)."""
