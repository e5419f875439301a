"""dod benchmark."""
