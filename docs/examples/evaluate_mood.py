import napari_mood

result = napari_mood.evaluate(napari_mood.sample_data_dir())  # or your MOOD dataset folder
print(result)  # result.to_frame(): a pandas DataFrame; result.to_json(): JSON text
