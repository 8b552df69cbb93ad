print("fspolicy")
