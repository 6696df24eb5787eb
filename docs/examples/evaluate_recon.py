import napari_mood

result = napari_mood.evaluate_recon("sim", "recon")  # a simulated PET set, a method's outputs
print(result)  # result.to_frame(): a pandas DataFrame; result.to_json(): JSON text
