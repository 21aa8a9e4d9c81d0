"""Native integration: SUNDIALS CVODE driven from C on the compiled model."""
