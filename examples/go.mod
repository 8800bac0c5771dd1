module github.com/ftools/ftools/examples

go 1.26.0

require github.com/ftools/ftools v0.0.0

require (
	github.com/diskfs/go-diskfs v1.9.4 // indirect
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)

replace github.com/ftools/ftools => ..
