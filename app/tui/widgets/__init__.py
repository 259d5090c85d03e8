"""Small widgets shared by the kvdrill screens."""
