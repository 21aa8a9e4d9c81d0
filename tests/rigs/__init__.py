"""Toolkit-built test rigs shared by several test modules (tests/reference stays free of the
toolkit: it holds the independent references)."""
