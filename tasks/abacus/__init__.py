"""abacus benchmark."""
