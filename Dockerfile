# The dashboard in a slim image, run as a non-root user. Build and run:
#   docker build -t metrics-lens . && docker run --rm -p 8501:8501 metrics-lens
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --create-home --uid 10001 lens
WORKDIR /app

# Dependencies first, so a code change does not reinstall them.
COPY requirements.txt constraints.txt ./
RUN pip install -r requirements.txt -c constraints.txt

COPY --chown=lens:lens .streamlit ./.streamlit
COPY --chown=lens:lens app.py ./
COPY --chown=lens:lens metrics ./metrics
COPY --chown=lens:lens ui ./ui
COPY --chown=lens:lens metrics_lens ./metrics_lens
COPY --chown=lens:lens pages ./pages
COPY --chown=lens:lens sample_data ./sample_data

USER lens
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"]
CMD ["python", "-m", "streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0", "--server.headless=true", "--browser.gatherUsageStats=false"]
