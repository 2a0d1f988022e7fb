# The azmc image: the worker and the `azmc` CLI at the locked versions (requirements/image.txt, traces
# included), nothing for development: no `temporal` dev server (`azmc dev`), no emulator.
# `docker build --build-arg LOCK=image-keyvault` adds Azure Key Vault for AZMC_CODEC_KEY_VAULT_URL;
# `--target emulator` builds the emulator's image, which docker-compose.yml's local profile runs.
FROM python:3.12-slim AS base

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app

# azmc's wheel, built with the locked setuptools. The worker reads the emulator's seeded names (emulator/seed.py:
# its default subscription on a loopback endpoint), so that one file of the emulator comes along.
FROM base AS source
COPY requirements/build.txt requirements/
RUN pip install --require-hashes --no-deps -r requirements/build.txt
COPY pyproject.toml README.md ./
COPY models ./models
COPY workflows ./workflows
COPY activities ./activities
COPY workers ./workers
COPY cli ./cli
COPY codec ./codec
COPY emulator/__init__.py emulator/seed.py ./emulator/

FROM source AS worker-wheel
RUN pip wheel --no-deps --no-build-isolation --wheel-dir /wheels .

FROM source AS emulator-wheel
COPY emulator ./emulator
RUN pip wheel --no-deps --no-build-isolation --wheel-dir /wheels .

# Dependencies change less often than code: the locked set, hashes checked, in a layer of its own.
FROM base AS dependencies
ARG LOCK=image
COPY requirements/${LOCK}.txt requirements/
RUN pip install --require-hashes --no-deps -r requirements/${LOCK}.txt

# For local stacks only: the Azure emulator (`azmc emulator`).
FROM dependencies AS emulator
COPY --from=emulator-wheel /wheels /wheels
RUN pip install --no-deps /wheels/*.whl && rm -rf /wheels
USER 10001
ENTRYPOINT ["azmc"]
CMD ["emulator"]

# The production image, the default target (the last stage).
FROM dependencies AS worker
COPY --from=worker-wheel /wheels /wheels
RUN pip install --no-deps /wheels/*.whl && rm -rf /wheels
# No root at runtime; the worker needs no writable paths.
USER 10001
# Prometheus metrics of the Temporal SDK (AZMC_METRICS_PORT).
EXPOSE 9464
ENTRYPOINT ["azmc"]
CMD ["worker"]
