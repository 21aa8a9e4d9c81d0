"""Test rigs built from the toolkit, shared between test modules (unlike ``reference``,
which must import nothing from the toolkit)."""
