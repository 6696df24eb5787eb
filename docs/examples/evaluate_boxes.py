import napari_mood

result = napari_mood.evaluate_boxes(napari_mood.sample_data_dir() / "nova")  # images + boxes.csv
print(result)  # result.to_frame(): a pandas DataFrame; result.to_json(): JSON text
