// Slide-ready chart downloads, run in the page (ui.views.show.download_all_button injects it once).
//
// Plotly's camera button re-draws the figure as it is on the page, and a chart's name is a
// Streamlit heading above it, so the image had no title. This script takes over that button:
// it renders the same figure with plotly.js's own Plotly.toImage (the library the page already
// loaded; nothing is fetched) with a title added above the plot (the figure's own title when it
// has one, else the name ui.views.show.chart put in layout.meta.export_title, else the heading above
// the chart) and the page height grown by the title's lines, so nothing below moves or clips.
// "Download every chart (zip)" renders every chart on the page the same way and packs the
// images into a zip written here (stored, CRC-32). On a touch screen the plotly toolbar is
// hidden (it stayed over the top of the chart after a tap) and each chart gets a download
// button below it instead.
(() => {
  "use strict";
  // No "<" before a letter, "/" or "!" anywhere in this file: Streamlit's HTML sanitizer
  // (DOMPurify) drops a script whose text has one, so such text is written "\u003c".
  if (window.__metricsLensChartExport) return; // one install per page load; re-mounts reuse it

  const CHART = ".js-plotly-plot";
  const ZIP_BUTTON = ".ml-zip-button";
  const TOUCH_BUTTON = "ml-chart-download";

  // --- the figure to export -------------------------------------------------------------------
  const copy = (value) => {
    if (Array.isArray(value)) return value.map(copy);
    if (ArrayBuffer.isView(value)) return value.slice();
    if (value && typeof value === "object" && !(value instanceof Node)) {
      const out = {};
      for (const key of Object.keys(value)) out[key] = copy(value[key]);
      return out;
    }
    return value;
  };

  const ownTitle = (gd) => {
    const title = gd.layout && gd.layout.title;
    return (typeof title === "string" ? title : title && title.text) || "";
  };

  // The nearest Streamlit heading above the chart in its own column (then the blocks around).
  const headingAbove = (gd) => {
    let node = gd.closest('[data-testid="stElementContainer"]');
    for (let depth = 0; node && depth < 4; depth += 1) {
      for (let at = node.previousElementSibling; at; at = at.previousElementSibling) {
        const heading = at.querySelector('[data-testid="stHeading"] h1, [data-testid="stHeading"] h2, [data-testid="stHeading"] h3, [data-testid="stHeading"] h4');
        if (heading) return heading.textContent.trim();
        if (at.querySelector(CHART)) return ""; // another chart's heading, not this one's
      }
      node = node.parentElement && node.parentElement.closest('[data-testid="stVerticalBlock"], [data-testid="stHorizontalBlock"], [data-testid="stColumn"]');
      if (node && node.closest('[data-testid="stSidebar"]')) return "";
    }
    return "";
  };

  const options = (gd) => (gd._context && gd._context.toImageButtonOptions) || {};

  const titleOf = (gd) => {
    const meta = gd.layout && gd.layout.meta;
    const named = meta && typeof meta === "object" && !Array.isArray(meta) ? meta.export_title : "";
    return named || headingAbove(gd) || String(options(gd).filename || "Chart").replace(/[-_]+/g, " ");
  };

  const escapeText = (text) =>
    text.replace(/&/g, "&amp;").replace(/\u003c/g, "&lt;").replace(/>/g, "&gt;");

  // Lines of at most `room` characters, broken at spaces (a long word stays whole).
  const wrap = (text, room) => {
    const lines = [];
    let line = "";
    for (const word of text.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > room) {
        lines.push(line);
        line = word;
      } else {
        line = line ? `${line} ${word}` : word;
      }
    }
    if (line) lines.push(line);
    return lines.length ? lines : [text];
  };

  function exportFigure(gd) {
    const full = gd._fullLayout;
    const layout = copy(gd.layout);
    const width = Math.round(full.width);
    let height = Math.round(full.height);
    if (!ownTitle(gd)) {
      const size = Math.round(((full.font && full.font.size) || 12) * 1.3);
      const room = Math.max(12, Math.floor((width - 24) / (size * 0.6)));
      const lines = wrap(titleOf(gd), room);
      const lineHeight = size * 1.3; // plotly's line spacing
      const extra = Math.ceil(lines.length * lineHeight + 16);
      height += extra;
      // Anchored at its top, plotly lifts a title of n lines by n - 1 lines (its first line
      // ran off the image): placed lower by as much.
      layout.title = {
        text: lines.map(escapeText).join("\u003cbr>"),
        x: 0, xref: "container", xanchor: "left",
        y: 1 - ((lines.length - 1) * lineHeight) / height, yref: "container", yanchor: "top",
        pad: { l: 12, t: 8 },
        // The page's template names its own web font for titles: the figure's font instead.
        font: { size, family: full.font && full.font.family },
      };
      layout.margin = Object.assign({}, layout.margin, { t: (full.margin.t || 0) + extra });
    }
    return { data: copy(gd.data), layout, width, height };
  }

  async function render(gd, format) {
    const figure = exportFigure(gd);
    const image = await window.Plotly.toImage(
      { data: figure.data, layout: figure.layout, config: {} },
      { format, width: figure.width, height: figure.height, scale: options(gd).scale || 2, imageDataOnly: true },
    );
    if (format === "svg") return new TextEncoder().encode(image);
    const binary = atob(image);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  const formatOf = (gd) => (options(gd).format === "svg" ? "svg" : "png");
  const fileOf = (gd) => `${options(gd).filename || "chart"}.${formatOf(gd)}`;
  const MIME = { png: "image/png", svg: "image/svg+xml", zip: "application/zip" };

  function save(bytes, name, type) {
    const url = URL.createObjectURL(new Blob([bytes], { type }));
    const link = document.createElement("a");
    link.href = url;
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 30000);
  }

  async function downloadOne(gd) {
    save(await render(gd, formatOf(gd)), fileOf(gd), MIME[formatOf(gd)]);
  }

  // --- a zip (stored entries, CRC-32) ---------------------------------------------------------
  const CRC_TABLE = (() => {
    const table = new Uint32Array(256);
    for (let n = 0; n < 256; n += 1) {
      let c = n;
      for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
    return table;
  })();

  const crc32 = (bytes) => {
    let c = 0xffffffff;
    for (let i = 0; i < bytes.length; i += 1) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };

  function zip(files) {
    const encoder = new TextEncoder();
    const now = new Date();
    const time = (now.getHours() << 11) | (now.getMinutes() << 5) | (now.getSeconds() >> 1);
    const date = ((now.getFullYear() - 1980) << 9) | ((now.getMonth() + 1) << 5) | now.getDate();
    const local = [];
    const central = [];
    let offset = 0;
    for (const file of files) {
      const name = encoder.encode(file.name);
      const crc = crc32(file.bytes);
      const size = file.bytes.length;
      const head = new DataView(new ArrayBuffer(30));
      head.setUint32(0, 0x04034b50, true);
      head.setUint16(4, 20, true); // version needed: 2.0
      head.setUint16(6, 0x0800, true); // names in UTF-8
      head.setUint16(8, 0, true); // stored
      head.setUint16(10, time, true);
      head.setUint16(12, date, true);
      head.setUint32(14, crc, true);
      head.setUint32(18, size, true);
      head.setUint32(22, size, true);
      head.setUint16(26, name.length, true);
      head.setUint16(28, 0, true);
      local.push(new Uint8Array(head.buffer), name, file.bytes);
      const entry = new DataView(new ArrayBuffer(46));
      entry.setUint32(0, 0x02014b50, true);
      entry.setUint16(4, 20, true);
      entry.setUint16(6, 20, true);
      entry.setUint16(8, 0x0800, true);
      entry.setUint16(10, 0, true);
      entry.setUint16(12, time, true);
      entry.setUint16(14, date, true);
      entry.setUint32(16, crc, true);
      entry.setUint32(20, size, true);
      entry.setUint32(24, size, true);
      entry.setUint16(28, name.length, true);
      entry.setUint32(42, offset, true); // the rest (extra, comment, attributes) zero
      central.push(new Uint8Array(entry.buffer), name);
      offset += 30 + name.length + size;
    }
    const centralSize = central.reduce((sum, part) => sum + part.length, 0);
    const end = new DataView(new ArrayBuffer(22));
    end.setUint32(0, 0x06054b50, true);
    end.setUint16(8, files.length, true);
    end.setUint16(10, files.length, true);
    end.setUint32(12, centralSize, true);
    end.setUint32(16, offset, true);
    return new Blob([...local, ...central, new Uint8Array(end.buffer)], { type: MIME.zip });
  }

  const charts = () =>
    [...document.querySelectorAll(CHART)].filter(
      (gd) => gd._fullLayout && !gd.closest('[data-testid="stSidebar"]'),
    );

  // The page's name for the zip: its URL path, or for the default page (at "/") the
  // navigation's current entry.
  const pageName = () => {
    const path = decodeURIComponent(window.location.pathname).replace(/\/+$/, "");
    const current = document.querySelector('[data-testid="stSidebarNav"] a[aria-current="page"]');
    let label = "";
    if (current) {
      const copyOf = current.cloneNode(true); // its text without the icon's ligature name
      copyOf.querySelectorAll('[data-testid="stIconMaterial"]').forEach((icon) => icon.remove());
      label = copyOf.textContent;
    }
    const name = path.slice(path.lastIndexOf("/") + 1) || label;
    return name.trim().toLowerCase().replace(/[^a-z0-9_]+/g, "-").replace(/^-+|-+$/g, "") || "metrics-lens";
  };

  async function downloadAll(button) {
    const note = button.parentElement.querySelector(".ml-zip-note");
    const say = (text) => { if (note) note.textContent = text; };
    const found = charts();
    if (!found.length) return say("This page has no charts.");
    button.disabled = true;
    const files = [];
    const taken = new Set();
    try {
      for (const [i, gd] of found.entries()) {
        say(`Drawing chart ${i + 1} of ${found.length}…`);
        let name = fileOf(gd);
        for (let n = 2; taken.has(name); n += 1) name = fileOf(gd).replace(/(\.\w+)$/, `-${n}$1`);
        taken.add(name);
        files.push({ name, bytes: await render(gd, formatOf(gd)) });
      }
      const archive = zip(files);
      save(archive, `${pageName()}-charts.zip`, MIME.zip);
      say(`${files.length} chart${files.length === 1 ? "" : "s"} saved.`);
    } catch (error) {
      say(`The charts could not be drawn: ${error && error.message ? error.message : error}`);
    } finally {
      button.disabled = false;
    }
  }

  // --- the camera button, the zip button and the touch buttons --------------------------------
  const isCamera = (button, gd) => {
    const bar = gd._fullLayout && gd._fullLayout._modeBar;
    if (bar && bar.buttonElements && bar.buttons) {
      const at = bar.buttonElements.indexOf(button);
      const config = at >= 0 ? bar.buttons.flat()[at] : null;
      if (config) return config.name === "toImage";
    }
    return (button.getAttribute("data-title") || "").startsWith("Download plot");
  };

  window.addEventListener(
    "click",
    (event) => {
      const target = event.target instanceof Element ? event.target : null;
      if (!target) return;
      const zipButton = target.closest(ZIP_BUTTON);
      if (zipButton) {
        event.preventDefault();
        downloadAll(zipButton);
        return;
      }
      const touch = target.closest(`.${TOUCH_BUTTON}`);
      const camera = touch ? null : target.closest(".modebar-btn");
      const gd = touch
        ? touch.closest('[data-testid="stElementContainer"]')?.querySelector(CHART)
        : camera && camera.closest(CHART);
      if (!gd || !window.Plotly || !window.Plotly.toImage) return; // plotly's own download
      if (camera && !isCamera(camera, gd)) return;
      event.preventDefault();
      event.stopImmediatePropagation(); // before plotly's listener on the button itself
      downloadOne(gd).catch((error) => {
        // Never leave the click without a file: plotly's own download, untitled.
        console.error("titled chart download failed; plotly's own instead", error);
        const own = options(gd);
        window.Plotly.downloadImage(gd, { format: formatOf(gd), filename: own.filename, scale: own.scale });
      });
    },
    true,
  );

  // Below every chart, a download button (shown on touch screens only, by the CSS).
  function addTouchButtons() {
    for (const gd of document.querySelectorAll(CHART)) {
      const holder = gd.closest('[data-testid="stPlotlyChart"]');
      if (!holder || !holder.parentElement || holder.parentElement.querySelector(`.${TOUCH_BUTTON}`)) continue;
      const button = document.createElement("button");
      button.type = "button";
      button.className = TOUCH_BUTTON;
      button.textContent = `Download ${formatOf(gd).toUpperCase()}`;
      button.title = `Save this chart as ${fileOf(gd)}`;
      holder.insertAdjacentElement("afterend", button);
    }
    for (const button of document.querySelectorAll(`.${TOUCH_BUTTON}`)) {
      const gd = button.parentElement && button.parentElement.querySelector(CHART);
      if (gd && gd._context) button.textContent = `Download ${formatOf(gd).toUpperCase()}`;
    }
  }
  let pending = false;
  new MutationObserver(() => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      addTouchButtons();
    });
  }).observe(document.body, { childList: true, subtree: true });
  addTouchButtons();

  window.__metricsLensChartExport = { exportFigure, render, zip, crc32, charts };
})();
