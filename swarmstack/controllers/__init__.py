"""Controller contracts (per-robot and batched), the views they see, and their loader."""
