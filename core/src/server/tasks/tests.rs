//! Unit tests of tasks: both eras, every method and error.
