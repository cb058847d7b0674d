// Chart.js charts that update in place: one chart per canvas, its data replaced on each poll
// (Chart.getChart(canvas).data is what the page shows, and what the browser test reads).
import { Chart, registerables } from 'chart.js';

Chart.register(...registerables);
Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;
Chart.defaults.elements.point.radius = 1;

export { Chart };

// Draws `config` on `canvas`, or replaces the data of the chart already there.
export function draw(canvas, config) {
  const chart = Chart.getChart(canvas);
  if (chart && chart.config.type === config.type) {
    chart.data = config.data;
    if (config.options) chart.options = config.options;
    chart.update();
    return chart;
  }
  if (chart) chart.destroy();
  return new Chart(canvas, config);
}

// A <div class="chart"><canvas id=ID></canvas></div> inside `parent`, made once.
export function canvasIn(parent, id, title) {
  let canvas = parent.querySelector(`#${id}`);
  if (!canvas) {
    const box = document.createElement('div');
    box.innerHTML = `${title ? `<h2>${title}</h2>` : ''}<div class="chart"><canvas id="${id}"></canvas></div>`;
    parent.appendChild(box);
    canvas = box.querySelector('canvas');
  }
  return canvas;
}
