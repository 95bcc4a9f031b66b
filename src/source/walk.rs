//! Turning the user's paths into the list of files to read.
