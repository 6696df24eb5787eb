"""GUI-free application layer shared by the command line and the napari wing."""
