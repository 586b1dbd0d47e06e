package main

import fwmodel "github.com/fwstruct/fwstruct/model"

// modelFile is a model file as the tests read it.
type modelFile = fwmodel.Model

// readModel reads the model file at path.
func readModel(path string) (*modelFile, error) { return fwmodel.Load(path) }
