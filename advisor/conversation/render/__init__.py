"""The sections of a deterministic answer, one module each; `advisor.conversation.render.compose` puts them together.

Every number is printed through `render.book.Book`, which records it on the Turn.
"""
