module github.com/napkit/napkit/examples

go 1.26.0

require github.com/napkit/napkit v0.0.0

replace github.com/napkit/napkit => ../
