// simtvp report — draws the charts of report.html from the data embedded in the page
// (<script id="simtvp-data" type="application/json">). Hand-written SVG, no library, no network.
// Every chart marks its container with data-rendered="1" once drawn; the page counts script errors
// in <body data-errors> (tests read both).
(function () {
  'use strict';
  var errors = 0;
  window.addEventListener('error', function () {
    errors++;
    document.body.setAttribute('data-errors', String(errors));
  });

  var SVGNS = 'http://www.w3.org/2000/svg';
  var PALETTE = ['#2b6cb0', '#dd6b20', '#38a169', '#d53f8c', '#805ad5', '#319795', '#b7791f', '#e53e3e',
                 '#4a5568', '#00a3c4', '#975a16', '#68d391'];
  var MODEL_COLORS = { ca: '#2b6cb0', at: '#38a169', func: '#a0aec0' };

  function el(tag, attrs, parent) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function html(tag, text, parent, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    if (parent) parent.appendChild(e);
    return e;
  }
  function title(node, text) { el('title', {}, node).textContent = text; }
  function byId(id) { return document.getElementById(id); }
  function pct(v) { return v === null || v === undefined || v < 0 || !isFinite(v) ? '-' : (100 * v).toFixed(1) + '%'; }
  function fixed(v, d) { return v === null || v === undefined || !isFinite(v) || v < 0 ? '-' : v.toFixed(d); }
  function big(v) {
    if (v === null || v === undefined) return '-';
    if (v >= 1e9) return (v / 1e9).toFixed(2) + 'G';
    if (v >= 1e6) return (v / 1e6).toFixed(2) + 'M';
    if (v >= 1e4) return (v / 1e3).toFixed(1) + 'k';
    return String(Math.round(v));
  }
  function us(ps) { return ps / 1e6; }
  function timeText(ps) {
    var u = ps / 1e6;
    if (u >= 1e6) return (u / 1e6).toFixed(3) + ' s';
    if (u >= 1e3) return (u / 1e3).toFixed(3) + ' ms';
    return u.toFixed(3) + ' us';
  }
  function niceTicks(lo, hi, n) {
    var span = hi - lo;
    if (!(span > 0)) return [lo];
    var step = Math.pow(10, Math.floor(Math.log10(span / n)));
    var err = span / n / step;
    if (err >= 7.5) step *= 10; else if (err >= 3.5) step *= 5; else if (err >= 1.5) step *= 2;
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toFixed(12));
    return out;
  }
  function done(container) { container.setAttribute('data-rendered', '1'); }

  // A chart frame: returns {svg, x(v), y(v), w, h} with axes drawn.
  function frame(container, opt) {
    var W = opt.width || 640, H = opt.height || 220, L = opt.left || 54, R = 12, T = 10, B = 30;
    var svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' }, container);
    if (opt.label) el('desc', {}, svg).textContent = opt.label;
    var w = W - L - R, h = H - T - B;
    var x = function (v) { return L + (opt.x1 > opt.x0 ? (v - opt.x0) / (opt.x1 - opt.x0) * w : 0); };
    var y = function (v) { return T + h - (opt.y1 > opt.y0 ? (v - opt.y0) / (opt.y1 - opt.y0) * h : 0); };
    var grid = el('g', { 'class': 'grid' }, svg), axis = el('g', { 'class': 'axis' }, svg);
    if (!opt.noY) {
      niceTicks(opt.y0, opt.y1, 4).forEach(function (t) {
        el('line', { x1: L, x2: L + w, y1: y(t), y2: y(t) }, grid);
        el('text', { x: L - 6, y: y(t) + 4, 'text-anchor': 'end' }, axis).textContent = opt.yfmt ? opt.yfmt(t) : String(t);
      });
    }
    niceTicks(opt.x0, opt.x1, 6).forEach(function (t) {
      el('line', { x1: x(t), x2: x(t), y1: T + h, y2: T + h + 4 }, axis);
      el('text', { x: x(t), y: T + h + 16, 'text-anchor': 'middle' }, axis).textContent = opt.xfmt ? opt.xfmt(t) : String(t);
    });
    el('line', { x1: L, x2: L + w, y1: T + h, y2: T + h }, axis);
    if (opt.xlabel) el('text', { x: L + w, y: H - 2, 'text-anchor': 'end', 'class': 'muted' }, svg).textContent = opt.xlabel;
    return { svg: svg, x: x, y: y, w: w, h: h, L: L, T: T };
  }

  // Kernel intervals as shaded bands behind a time chart.
  function kernelBands(f, D, x0, x1) {
    var g = el('g', {}, f.svg);
    D.kernels.forEach(function (k, i) {
      var a = Math.max(us(k.begin_ps), x0), b = Math.min(us(k.end_ps), x1);
      if (b <= a) return;
      var r = el('rect', { x: f.x(a), y: f.T, width: Math.max(1, f.x(b) - f.x(a)), height: f.h,
                           fill: PALETTE[i % PALETTE.length], 'fill-opacity': 0.07 }, g);
      title(r, 'kernel ' + k.uid + ' ' + k.short);
    });
  }

  // The part of the run the time charts show: from the first kernel's begin to the last one's end.
  function busySpan(D) {
    var t0 = Infinity, t1 = 0;
    D.kernels.forEach(function (k) { t0 = Math.min(t0, k.begin_ps); t1 = Math.max(t1, k.end_ps); });
    var T = D.series.t || [];
    if (!(t1 > t0) && T.length > 1) { t0 = T[0]; t1 = T[T.length - 1]; }
    return t1 > t0 ? [t0, t1] : null;
  }
  // A cumulative counter at time t (linear between samples; constant outside).
  function cumAt(T, V, t) {
    var n = T.length;
    if (!n) return 0;
    if (t <= T[0]) return V[0];
    if (t >= T[n - 1]) return V[n - 1];
    var lo = 0, hi = n - 1;
    while (hi - lo > 1) { var mid = (lo + hi) >> 1; if (T[mid] <= t) lo = mid; else hi = mid; }
    var f = (t - T[lo]) / (T[hi] - T[lo]);
    return V[lo] + f * (V[hi] - V[lo]);
  }
  // Rate of num over den (den null: core cycles of the bucket) in nb equal buckets of [t0, t1].
  function buckets(D, num, den, nb, span, scale) {
    var T = D.series.t || [], out = [], core = D.run.core_mhz || 0;
    if (!num || T.length < 2 || !span) return out;
    for (var b = 0; b < nb; b++) {
      var a = span[0] + (span[1] - span[0]) * b / nb, z = span[0] + (span[1] - span[0]) * (b + 1) / nb;
      var dn = cumAt(T, num, z) - cumAt(T, num, a);
      var dd = den ? cumAt(T, den, z) - cumAt(T, den, a) : (z - a) * core / 1e6;
      out.push(dd > 1e-9 ? dn / dd * (scale || 1) : null);
    }
    return out;
  }

  function lineChart(id, D, series, opt) {
    var c = byId(id);
    if (!c) return;
    var span = busySpan(D);
    if (!span || (D.series.t || []).length < 2) {
      html('p', 'No samples (the GPU ran no timed kernel).', c, 'note');
      done(c);
      return;
    }
    var nb = series[0].values.length || 1;
    var x0 = us(span[0]), x1 = us(span[1]);
    var ymax = opt.ymax || 0;
    series.forEach(function (s) { s.values.forEach(function (v) { if (v !== null && v > ymax) ymax = v; }); });
    if (!(ymax > 0)) ymax = 1;
    var f = frame(c, { x0: x0, x1: x1, y0: 0, y1: ymax, xlabel: 'simulated time (us)', yfmt: opt.yfmt,
                       label: opt.label });
    kernelBands(f, D, x0, x1);
    series.forEach(function (s, si) {
      var d = '', pen = false;
      for (var i = 0; i < nb; i++) {
        var v = s.values[i];
        if (v === null || !isFinite(v)) { pen = false; continue; }
        var xa = f.x(x0 + (x1 - x0) * i / nb).toFixed(1), xb = f.x(x0 + (x1 - x0) * (i + 1) / nb).toFixed(1);
        var y = f.y(v).toFixed(1);
        d += (pen ? 'L' : 'M') + xa + ' ' + y + 'L' + xb + ' ' + y;
        pen = true;
      }
      var p = el('path', { d: d || 'M0 0', fill: 'none', stroke: s.color || PALETTE[si], 'stroke-width': 1.5 }, f.svg);
      title(p, s.name);
    });
    if (series.length > 1) {
      var lg = html('div', null, c, 'legend');
      series.forEach(function (s, si) {
        var sp = html('span', null, lg);
        var i = html('i', null, sp);
        i.style.background = s.color || PALETTE[si];
        sp.appendChild(document.createTextNode(s.name));
      });
    }
    done(c);
  }

  // Hit rate in % from cumulative accesses and misses.
  function hitRate(D, nb, span, acc, miss) {
    var a = buckets(D, D.series[acc], null, nb, span, 1), m = buckets(D, D.series[miss], null, nb, span, 1);
    return a.map(function (v, i) { return v !== null && v > 0 && m[i] !== null ? 100 * (1 - m[i] / v) : null; });
  }

  function heatColor(v) {  // 0..1 -> white..blue
    v = Math.max(0, Math.min(1, v));
    var r = Math.round(255 - v * (255 - 33)), g = Math.round(255 - v * (255 - 84)), b = Math.round(255 - v * (255 - 166));
    return 'rgb(' + r + ',' + g + ',' + b + ')';
  }

  // rows: [{label, values:[...] }], columns: labels or time edges.
  function heatMap(id, rows, opt) {
    var c = byId(id);
    if (!c) return;
    if (!rows.length || !rows[0].values.length) { html('p', opt.empty || 'No data.', c, 'note'); done(c); return; }
    var n = rows[0].values.length, rowH = Math.max(6, Math.min(18, Math.floor(260 / rows.length)));
    var L = opt.left || 70, W = opt.width || 640, T = 6, H = T + rows.length * rowH + 34;
    var svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' }, c);
    el('desc', {}, svg).textContent = opt.label || '';
    var cw = (W - L - 12) / n, max = opt.max || 0;
    if (!max) rows.forEach(function (r) { r.values.forEach(function (v) { if (v !== null && v > max) max = v; }); });
    if (!(max > 0)) max = 1;
    rows.forEach(function (r, ri) {
      var y = T + ri * rowH;
      el('text', { x: L - 6, y: y + rowH * 0.75, 'text-anchor': 'end' }, svg).textContent = rowH >= 9 || ri % 4 === 0 ? r.label : '';
      r.values.forEach(function (v, ci) {
        var rect = el('rect', { x: (L + ci * cw).toFixed(2), y: y, width: (cw + 0.5).toFixed(2), height: rowH - 1,
                                fill: v === null ? '#f4f4f4' : heatColor(v / max) }, svg);
        title(rect, r.label + ', ' + (opt.colLabel ? opt.colLabel(ci) : ci) + ': ' + (v === null ? 'no data' : opt.fmt(v)));
      });
    });
    var yb = T + rows.length * rowH + 4;
    if (opt.colTicks) opt.colTicks(svg, L, cw, yb);
    // Scale.
    var sx = W - 160;
    for (var i = 0; i <= 10; i++) el('rect', { x: sx + i * 10, y: yb + 16, width: 10, height: 8, fill: heatColor(i / 10) }, svg);
    el('text', { x: sx - 4, y: yb + 24, 'text-anchor': 'end' }, svg).textContent = opt.fmt(0);
    el('text', { x: sx + 114, y: yb + 24 }, svg).textContent = opt.fmt(max);
    done(c);
  }

  // ---- sections --------------------------------------------------------------------------------

  function facts(D) {
    var c = byId('facts'), R = D.run;
    var items = [['program', R.title], ['GPU', R.gpu], ['configuration', R.config], ['SIMT side', R.simt_model],
                 ['kernels', String(D.kernels.length)], ['simulated time', timeText(R.sim_ps)],
                 ['thread instructions', big(R.thread_insn)], ['wall time', R.wall_s.toFixed(2) + ' s'],
                 ['core clock', R.core_mhz ? R.core_mhz + ' MHz' : '-'],
                 ['DRAM peak', R.dram_peak_gbs ? R.dram_peak_gbs.toFixed(1) + ' GB/s' : '-']];
    items.forEach(function (it) {
      var f = html('div', null, c, 'fact');
      html('div', it[0], f, 'k');
      html('div', it[1], f, 'v');
    });
    done(c);
  }

  function kernelTable(D) {
    var c = byId('kernel-table');
    var t = html('table', null, c);
    var head = ['#', 'kernel', 'grid', 'block', 'CTAs', 'time', 'cycles', 'IPC', 'warp insns', 'occupancy', 'L1D hit',
                'L2 hit', 'DRAM bw', 'top stall'];
    var tr = html('tr', null, t);
    head.forEach(function (h, i) { html('th', h, tr, i >= 4 && i <= 12 ? 'num' : ''); });
    D.kernels.forEach(function (k) {
      var r = html('tr', null, t);
      var top = k.stalls.length && k.sched ? k.stalls[0][0] + ' ' + pct(k.stalls[0][1] / k.sched) : '-';
      var cells = [k.uid, k.short, '(' + k.grid.join(',') + ')', '(' + k.block.join(',') + ')', k.ctas,
                   timeText(k.end_ps - k.begin_ps), k.cycles, fixed(k.ipc, 2), big(k.warp_insn), pct(k.occupancy),
                   pct(k.l1d_hit), pct(k.l2_hit), pct(k.dram_util), top];
      cells.forEach(function (v, i) {
        var td = html('td', v, r, i >= 4 && i <= 12 ? 'num' : '');
        if (i === 1) td.title = k.display;
      });
    });
    done(c);
  }

  function timelineChart(D) {
    var c = byId('timeline');
    var TL = D.timeline, end = us(TL.end_ps || 1);
    var rows = [];
    var kl = 0;
    D.kernels.forEach(function (k) { kl = Math.max(kl, k.lane + 1); });
    for (var i = 0; i < Math.max(kl, 1); i++) rows.push({ label: i ? 'kernels ' + i : 'kernels', kind: 'kernel', lane: i });
    var cl = 0;
    TL.copies.forEach(function (cp) { cl = Math.max(cl, cp[2] + 1); });
    for (i = 0; i < cl; i++) rows.push({ label: 'copy engine ' + i, kind: 'copy', lane: i });
    rows.push({ label: 'command proc.', kind: 'cp' });
    rows.push({ label: 'interrupt', kind: 'irq' });
    TL.dram.forEach(function (d, ch) { rows.push({ label: 'DRAM ' + ch, kind: 'dram', ch: ch }); });
    TL.sm_ctas.forEach(function (s, sm) { rows.push({ label: 'SM ' + sm, kind: 'sm', sm: sm }); });
    var rowH = 16, L = 100, W = 1100, T = 8, H = T + rows.length * rowH + 36;
    var svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' }, c);
    el('desc', {}, svg).textContent = 'kernel timeline';
    var w = W - L - 12, x = function (v) { return L + v / end * w; };
    var nb = TL.buckets;
    rows.forEach(function (r, ri) {
      var y = T + ri * rowH;
      el('text', { x: L - 6, y: y + 12, 'text-anchor': 'end' }, svg).textContent = r.label;
      el('line', { x1: L, x2: L + w, y1: y + rowH - 0.5, y2: y + rowH - 0.5, stroke: '#f0f2f5' }, svg);
      if (r.kind === 'kernel') {
        D.kernels.forEach(function (k, ki) {
          if (k.lane !== r.lane) return;
          var a = us(k.begin_ps), b = us(k.end_ps);
          var rect = el('rect', { x: x(a), y: y + 2, width: Math.max(1, x(b) - x(a)), height: rowH - 4,
                                  fill: PALETTE[ki % PALETTE.length], rx: 2 }, svg);
          title(rect, 'kernel ' + k.uid + ' ' + k.display + '\n' + timeText(k.begin_ps) + ' .. ' + timeText(k.end_ps) +
                ', ' + k.cycles + ' cycles');
          if (x(b) - x(a) > 60)
            el('text', { x: x(a) + 4, y: y + 12, fill: '#fff', style: 'fill:#fff' }, svg).textContent = k.short;
        });
      } else if (r.kind === 'copy') {
        TL.copies.forEach(function (cp) {
          if (cp[2] !== r.lane) return;
          var rect = el('rect', { x: x(us(cp[0])), y: y + 3, width: Math.max(1, x(us(cp[1])) - x(us(cp[0]))),
                                  height: rowH - 6, fill: '#dd6b20', rx: 2 }, svg);
          title(rect, cp[4] + ', ' + big(cp[3]) + ' bytes, ' + timeText(cp[0]) + ' .. ' + timeText(cp[1]));
        });
      } else if (r.kind === 'cp') {
        TL.cp.forEach(function (w2) {
          el('rect', { x: x(us(w2[0])), y: y + 4, width: Math.max(1, x(us(w2[1])) - x(us(w2[0]))), height: rowH - 8,
                       fill: '#805ad5' }, svg);
        });
      } else if (r.kind === 'irq') {
        TL.irqs.forEach(function (q) {
          if (!q[1]) return;
          var m = el('rect', { x: x(us(q[0])) - 1, y: y + 3, width: 2, height: rowH - 6, fill: '#e53e3e' }, svg);
          title(m, 'interrupt at ' + timeText(q[0]));
        });
      } else {
        var vals = r.kind === 'dram' ? TL.dram[r.ch] : TL.sm_ctas[r.sm], max = r.kind === 'dram' ? 1 : TL.max_ctas || 1;
        for (var b = 0; b < nb; b++) {
          var v = vals[b];
          if (!v) continue;
          var rect = el('rect', { x: x(us(b * TL.bucket_ps)), y: y + 2, width: Math.max(0.6, w / nb), height: rowH - 4,
                                  fill: r.kind === 'dram' ? '#319795' : '#2b6cb0', 'fill-opacity': (0.15 + 0.85 * Math.min(1, v / max)).toFixed(3) }, svg);
          title(rect, r.label + ' at ' + timeText(b * TL.bucket_ps) + ': ' +
                (r.kind === 'dram' ? pct(v) + ' busy' : v.toFixed(2) + ' resident CTAs'));
        }
      }
    });
    var yb = T + rows.length * rowH + 2;
    niceTicks(0, end, 8).forEach(function (t) {
      el('line', { x1: x(t), x2: x(t), y1: yb, y2: yb + 4, stroke: '#9aa3b2' }, svg);
      el('text', { x: x(t), y: yb + 16, 'text-anchor': 'middle' }, svg).textContent = String(t);
    });
    el('text', { x: L + w, y: H - 2, 'text-anchor': 'end' }, svg).textContent = 'simulated time (us)';
    done(c);
  }

  function stallChart(D) {
    var c = byId('stalls');
    var ks = D.kernels.filter(function (k) { return k.sched > 0; });
    if (!ks.length) { html('p', 'No scheduler statistics (functional mode).', c, 'note'); done(c); return; }
    var names = ['issue'];
    ks.forEach(function (k) { k.stalls.forEach(function (s) { if (names.indexOf(s[0]) < 0) names.push(s[0]); }); });
    var rowH = 22, L = 190, W = 900, T = 6, H = T + ks.length * rowH + 26;
    var svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' }, c);
    el('desc', {}, svg).textContent = 'scheduler cycles by outcome per kernel';
    var w = W - L - 20;
    ks.forEach(function (k, ri) {
      var y = T + ri * rowH, xx = L;
      el('text', { x: L - 6, y: y + 15, 'text-anchor': 'end' }, svg).textContent = k.uid + ' ' + k.short;
      var parts = [['issue', k.issue]].concat(k.stalls);
      names.forEach(function (n, ni) {
        var v = 0;
        parts.forEach(function (p) { if (p[0] === n) v = p[1]; });
        if (!v) return;
        var pw = v / k.sched * w;
        var r = el('rect', { x: xx, y: y + 3, width: pw, height: rowH - 6, fill: ni === 0 ? '#38a169' : PALETTE[(ni + 3) % PALETTE.length] }, svg);
        title(r, k.short + ': ' + n + ' ' + pct(v / k.sched) + ' (' + v + ' scheduler cycles)');
        xx += pw;
      });
    });
    [0, 0.25, 0.5, 0.75, 1].forEach(function (t) {
      el('text', { x: L + t * w, y: H - 6, 'text-anchor': 'middle' }, svg).textContent = (t * 100) + '%';
    });
    var lg = html('div', null, c, 'legend');
    names.forEach(function (n, ni) {
      var sp = html('span', null, lg);
      var i = html('i', null, sp);
      i.style.background = ni === 0 ? '#38a169' : PALETTE[(ni + 3) % PALETTE.length];
      sp.appendChild(document.createTextNode(n));
    });
    // Memory-stage stalls as a table.
    var any = ks.some(function (k) { return k.mem_stalls.some(function (m) { return m[1] > 0; }); });
    if (any) {
      html('h3', 'Memory-stage stalls (cycles)', c);
      var t = html('table', null, c), tr = html('tr', null, t);
      html('th', 'kernel', tr);
      ks[0].mem_stalls.forEach(function (m) { html('th', m[0], tr, 'num'); });
      ks.forEach(function (k) {
        var r = html('tr', null, t);
        html('td', k.uid + ' ' + k.short, r);
        k.mem_stalls.forEach(function (m) { html('td', m[1], r, 'num'); });
      });
    }
    done(c);
  }

  function overTime(D) {
    var span = busySpan(D), nb = 200, T = D.series;
    lineChart('chart-ipc', D, [{ name: 'IPC (thread instructions per core cycle)',
      values: buckets(D, T.insn, null, nb, span, 1) }], { label: 'IPC over time', yfmt: function (v) { return String(v); } });
    // Resident warps over warp slots of all SMs, from the CTAs on the timeline (its own buckets over the
    // same span).
    var occ = (D.occupancy.values || []).map(function (v) { return 100 * v; });
    lineChart('chart-occ', D, [{ name: 'achieved occupancy (resident warps / warp slots)', values: occ }],
      { label: 'occupancy over time', ymax: 100, yfmt: function (v) { return v + '%'; } });
    var busy = T.dram_busy || [], cmd = T.dram_cmd || [], sb = null, sc = null;
    if (busy.length) {
      sb = busy[0].map(function (_, i) { var v = 0; busy.forEach(function (c) { v += c[i]; }); return v; });
      sc = cmd[0].map(function (_, i) { var v = 0; cmd.forEach(function (c) { v += c[i]; }); return v; });
    }
    lineChart('chart-dram', D, [{ name: 'DRAM bandwidth (% of peak)', values: sb ? buckets(D, sb, sc, nb, span, 100) : [] }],
      { label: 'DRAM bandwidth over time', ymax: 100, yfmt: function (v) { return v + '%'; } });
    lineChart('chart-cache', D, [{ name: 'L1D hit rate', values: hitRate(D, nb, span, 'l1d_access', 'l1d_miss'), color: '#2b6cb0' },
                                 { name: 'L2 hit rate', values: hitRate(D, nb, span, 'l2_access', 'l2_miss'), color: '#dd6b20' }],
      { label: 'cache hit rates over time', ymax: 100, yfmt: function (v) { return v + '%'; } });
  }

  function heatMaps(D) {
    var span = busySpan(D), nb = 120, S = D.series;
    var colLabel = function (ci) {
      return timeText(span[0] + (span[1] - span[0]) * ci / nb) + ' .. ' + timeText(span[0] + (span[1] - span[0]) * (ci + 1) / nb);
    };
    var ticks = function (svg, L, cw, y) {
      var a = us(span[0]), b = us(span[1]);
      niceTicks(a, b, 6).forEach(function (t) {
        el('text', { x: L + (t - a) / (b - a) * cw * nb, y: y + 10, 'text-anchor': 'middle' }, svg).textContent = String(t);
      });
    };
    var smRows = span ? (S.sm || []).map(function (v, sm) {
      return { label: 'SM ' + sm, values: buckets(D, v, null, nb, span, 1) };
    }) : [];
    heatMap('heat-sm-time', smRows, { label: 'IPC per SM over time', fmt: function (v) { return v.toFixed(1) + ' IPC'; },
      colLabel: colLabel, colTicks: ticks, empty: 'No per-SM samples.' });
    var dramRows = span ? (S.dram_busy || []).map(function (v, ch) {
      return { label: 'channel ' + ch, values: buckets(D, v, S.dram_cmd[ch], nb, span, 1) };
    }) : [];
    heatMap('heat-dram-time', dramRows, { label: 'DRAM utilisation per channel over time', fmt: pct,
      colLabel: colLabel, colTicks: ticks, empty: 'No DRAM samples.' });
    var ks = D.kernels;
    var nsm = 0, npart = 0;
    ks.forEach(function (k) { nsm = Math.max(nsm, k.sm_ipc.length); npart = Math.max(npart, k.part_dram_util.length); });
    var rows = [];
    for (var s = 0; s < nsm; s++)
      rows.push({ label: 'SM ' + s, values: ks.map(function (k) { var v = k.sm_ipc[s]; return v === undefined || v < 0 ? null : v; }) });
    var kLabel = function (ci) { return 'kernel ' + ks[ci].uid + ' ' + ks[ci].short; };
    heatMap('heat-sm-kernel', rows, { label: 'IPC per SM per kernel', fmt: function (v) { return v.toFixed(2); },
      colLabel: kLabel, empty: 'No per-SM statistics.' });
    rows = [];
    for (var p = 0; p < npart; p++)
      rows.push({ label: 'partition ' + p, values: ks.map(function (k) { var v = k.part_dram_util[p]; return v === undefined || v < 0 ? null : v; }) });
    heatMap('heat-part-kernel', rows, { label: 'DRAM utilisation per partition per kernel', fmt: pct,
      colLabel: kLabel, empty: 'No memory-partition statistics.' });
    rows = [];
    for (p = 0; p < npart; p++)
      rows.push({ label: 'partition ' + p, values: ks.map(function (k) { var v = k.part_l2_hit[p]; return v === undefined || v < 0 ? null : v; }) });
    heatMap('heat-l2-kernel', rows, { label: 'L2 hit rate per partition per kernel', max: 1, fmt: pct,
      colLabel: kLabel, empty: 'No L2 statistics.' });
  }

  function hotspots(D) {
    var c = byId('hotspots');
    var H = D.hotspots;
    if (!H) {
      html('p', 'The PTX/source-line profile is off. Run with --set \'-enable_ptx_file_line_stats 1\' to see the lines ' +
           'where warps executed and stalled.', c, 'note');
      done(c);
      return;
    }
    function table(title2, lines, src) {
      html('h3', title2, c);
      if (!lines.length) { html('p', 'No lines.', c, 'note'); return; }
      var t = html('table', null, c), tr = html('tr', null, t);
      var cols = src ? ['source line', 'warp insns', 'thread insns', 'stall cycles', 'share of stalls']
                     : ['PTX line', 'source line', 'warp insns', 'thread insns', 'stall cycles', 'share of stalls'];
      cols.forEach(function (h, i) { html('th', h, tr, i >= (src ? 1 : 2) ? 'num' : ''); });
      var total = 0;
      lines.forEach(function (l) { total += l.stall; });
      var max = 0;
      lines.forEach(function (l) { max = Math.max(max, l.stall); });
      lines.forEach(function (l) {
        var r = html('tr', null, t);
        html('td', l.file + ':' + l.line, r, 'mono');
        if (!src) html('td', l.src || '-', r, 'mono');
        html('td', l.warp, r, 'num');
        html('td', l.thread, r, 'num');
        var td = html('td', null, r, 'num');
        var svg = el('svg', { width: 60, height: 10 }, td);
        el('rect', { x: 0, y: 1, width: max ? 60 * l.stall / max : 0, height: 8, fill: '#e53e3e' }, svg);
        td.appendChild(document.createTextNode(' ' + l.stall));
        html('td', total ? pct(l.stall / total) : '-', r, 'num');
      });
    }
    table('PTX lines, by stall cycles', H.ptx, false);
    table('CUDA source lines (.loc), by stall cycles', H.source, true);
    html('p', 'Stall cycles of an instruction: the cycles its warp waited to issue it after its previous instruction ' +
         '(scoreboard, pipeline, fetch, barrier waits land on the waiting instruction).', c, 'note');
    done(c);
  }

  function configSection(D) {
    var c = byId('config');
    var F = D.config.fidelity;
    html('h3', 'Fidelity map', c);
    var fm = html('div', null, c);
    html('div', 'SIMT cores', fm, 'muted');
    var row = html('div', null, fm);
    F.sm.forEach(function (m, i) {
      var b = html('span', m, row, 'fid');
      b.style.background = MODEL_COLORS[m] || '#718096';
      b.title = 'SM ' + i + ': ' + m;
    });
    if (F.dram.length) {
      html('div', 'DRAM channels', fm, 'muted');
      row = html('div', null, fm);
      F.dram.forEach(function (m, i) {
        var b = html('span', m, row, 'fid');
        b.style.background = MODEL_COLORS[m] || '#718096';
        b.title = 'channel ' + i + ': ' + m;
      });
    }
    var lg = html('div', null, fm, 'legend');
    [['ca', 'cycle-accurate'], ['at', 'approximately timed'], ['func', 'functional']].forEach(function (m) {
      var sp = html('span', null, lg), i = html('i', null, sp);
      i.style.background = MODEL_COLORS[m[0]];
      sp.appendChild(document.createTextNode(m[0] + ' = ' + m[1]));
    });
    html('h3', 'GPU', c);
    var t = html('table', null, c);
    D.config.params.forEach(function (p) { var r = html('tr', null, t); html('th', p[0], r); html('td', p[1], r, 'mono'); });
    html('h3', 'Options set (beyond the defaults)', c);
    t = html('table', null, c);
    var tr = html('tr', null, t);
    ['option', 'value', 'set at'].forEach(function (h) { html('th', h, tr); });
    D.config.options.forEach(function (o) {
      var r = html('tr', null, t);
      html('td', o[0], r, 'mono');
      html('td', o[1], r, 'mono');
      html('td', o[2], r, 'mono muted');
    });
    if (D.config.not_modelled.length)
      html('p', 'Accepted for GPGPU-Sim compatibility but not modelled: ' + D.config.not_modelled.join(', '), c, 'note');
    done(c);
  }

  function main() {
    var node = byId('simtvp-data');
    var D = JSON.parse(node.textContent);
    var steps = [facts, kernelTable, timelineChart, overTime, stallChart, heatMaps, hotspots, configSection];
    steps.forEach(function (f) {
      try {
        f(D);
      } catch (e) {
        errors++;
        document.body.setAttribute('data-errors', String(errors));
        if (window.console) console.error('simtvp report: ' + f.name + ': ' + e);
      }
    });
    document.body.setAttribute('data-ready', '1');
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', main);
  else main();
})();
