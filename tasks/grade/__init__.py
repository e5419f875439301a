"""grade benchmark."""
