module github.com/gojax/gojax

go 1.26.8

require (
	github.com/stretchr/testify v1.10.0
	gonum.org/v1/gonum v0.16.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/go-python/gopy v0.5.0 // indirect
	github.com/gonuts/commander v0.1.0 // indirect
	github.com/gonuts/flag v0.1.0 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/mod v0.22.0 // indirect
	golang.org/x/sync v0.10.0 // indirect
	golang.org/x/tools v0.29.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

tool (
	github.com/go-python/gopy
	golang.org/x/tools/cmd/goimports
)
