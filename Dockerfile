# Recollect's image for teams that build with Docker (docker build -t recollect .).
# make image builds the same image without a Docker daemon (cmd/imagebuild):
# the static recollect binary in /usr/local/bin and the six module names
# (ingest, extractor, embedder, consolidator, topiary, query) as symlinks to
# it: recollect run under a module's name behaves as that module's binary.
# User 65532; data in /data; port 7700.
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
# The links are made here: the final stage has no shell. COPY of a
# directory keeps its symlinks as symlinks.
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/recollect-dev/recollect/pkg/cli.Version=${VERSION}" \
      -o /out/bin/recollect ./cmd/recollect \
 && for m in ingest extractor embedder consolidator topiary query; do ln -s recollect /out/bin/$m; done \
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
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=build /out/bin/ /usr/local/bin/
COPY --from=build --chown=65532:65532 /out/data /data
ENV RECOLLECT_DATA_DIR=/data \
    RECOLLECT_HTTP_ADDR=0.0.0.0:7700
USER 65532:65532
WORKDIR /data
VOLUME /data
EXPOSE 7700/tcp
ENTRYPOINT ["/usr/local/bin/recollect"]
CMD ["run"]
