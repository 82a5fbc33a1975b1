// Placeholder so an empty layer still builds a library.
