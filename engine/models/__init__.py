"""The models the engine calls: the embedding model (fastembed, offline) and an optional LLM."""
