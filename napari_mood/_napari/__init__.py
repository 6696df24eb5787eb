"""The napari wing: reader, sample data, layers, session, viewer helpers and widgets."""
