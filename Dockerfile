# The azmc image: the `azmc` CLI, so one image runs `azmc worker` (and `azmc emulator` for local stacks).
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# Dependencies change less often than code: install them in their own layer.
COPY pyproject.toml README.md ./
RUN mkdir models workflows activities workers cli emulator \
    && touch models/__init__.py workflows/__init__.py activities/__init__.py workers/__init__.py cli/__init__.py emulator/__init__.py \
    && pip install ".[tracing]" \
    && pip uninstall -y azmc
COPY models ./models
COPY workflows ./workflows
COPY activities ./activities
COPY workers ./workers
COPY cli ./cli
COPY emulator ./emulator
COPY codec ./codec
RUN pip install --no-deps .

# No root at runtime; the worker needs no writable paths.
USER 10001
# Prometheus metrics of the Temporal SDK (AZMC_METRICS_PORT).
EXPOSE 9464
ENTRYPOINT ["azmc"]
CMD ["worker"]
