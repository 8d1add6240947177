"""Physics: differential-drive integration and contacts, vectorised over every robot."""
