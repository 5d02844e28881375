"""attnkit: learn single-head causal self-attention (GPT-2 Small) by writing it in numpy."""

__version__ = "0.1.0"
