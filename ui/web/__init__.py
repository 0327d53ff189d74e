"""The browser chat: the Gradio app and its pure parts (page, panels, charts, exports, store)."""
