"""One generator module per CwI task: ``generate(rng, tier) -> GeneratedItem``."""
