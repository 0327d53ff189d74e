"""Pure estimator functions: memory, throughput, training time and cost. No I/O, no LangChain/Gradio/durable."""
