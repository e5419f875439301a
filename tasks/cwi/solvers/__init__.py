"""One reference solver module per CwI task: ``solve(image, image_2, prompt) -> str``."""
