package debugmarker

//go:generate go run ../../cmd/vkgen layer generate --registry ../../../shared/vkregistry/1.4.359/vk.xml
