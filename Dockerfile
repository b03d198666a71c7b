# Recollect's image for teams that build with Docker (docker build -t recollect .).
# make image builds the same image without a Docker daemon (cmd/imagebuild):
# the recollect binary and the six module binaries, static, in
# /usr/local/bin; user 65532; data in /data; port 7700.
#
#   docker run -p 7700:7700 -v recollect-data:/data -e RECOLLECT_API_KEYS=mykey=acme:admin recollect
#
# The image listens on 0.0.0.0:7700, which needs API keys (RECOLLECT_API_KEYS or
# --api-keys-file) or, on a trusted network only, RECOLLECT_INSECURE=true.
# A module alone: docker run --entrypoint /usr/local/bin/ingest recollect --nats-url nats://nats:4222 ...

ARG GO_VERSION=1.26
FROM golang:${GO_VERSION} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/recollect-dev/recollect/pkg/cli.Version=${VERSION}" \
      -o /out/ ./cmd/recollect ./cmd/ingest ./cmd/extractor ./cmd/embedder ./cmd/consolidator ./cmd/topiary ./cmd/query \
 && mkdir -p /out/data

# distroless/static: CA certificates, /etc/passwd with nonroot (65532), no shell.
FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="recollect" \
      org.opencontainers.image.description="Long-term memory for AI agents" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="https://github.com/recollect-dev/recollect" \
      org.opencontainers.image.licenses="NOASSERTION"
COPY --from=build /out/recollect /out/ingest /out/extractor /out/embedder /out/consolidator /out/topiary /out/query /usr/local/bin/
COPY --from=build --chown=65532:65532 /out/data /data
ENV RECOLLECT_DATA_DIR=/data \
    RECOLLECT_HTTP_ADDR=0.0.0.0:7700
USER 65532:65532
WORKDIR /data
VOLUME /data
EXPOSE 7700/tcp
ENTRYPOINT ["/usr/local/bin/recollect"]
CMD ["run"]
