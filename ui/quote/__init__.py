"""The customer quote: the typed document, its Markdown/HTML/PDF renderings, stored quotes."""
