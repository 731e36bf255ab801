# napkit's example controller: a static binary on distroless (CA certificates, user 65532, no shell).
#   docker build -t napkit-controller .
# Machines without a container daemon build the same image offline as an OCI layout (see README,
# "Container image"): deploy/ociimage.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY examples/go.mod examples/go.sum examples/
RUN cd examples && go mod download
COPY . .
ARG VERSION=dev
RUN cd examples && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/napkit-controller ./controller

FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
ARG REVISION=""
LABEL org.opencontainers.image.title="napkit-controller" \
      org.opencontainers.image.source="https://github.com/napkit/napkit" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY --from=build /out/napkit-controller /napkit-controller
USER 65532:65532
ENTRYPOINT ["/napkit-controller"]
