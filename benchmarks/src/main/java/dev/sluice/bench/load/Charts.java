package dev.sluice.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.style.Styler;

/** The report's PNG plots, drawn with XChart: throughput bars and latency percentiles. */
public final class Charts {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 480;

  private Charts() {}

  /** Median decisions/s per contender, with the min..max of the rounds as error bars. */
  public static void throughput(ScenarioResult scenario, Path file) throws IOException {
    List<ContenderRun> runs = scenario.measured();
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(scenario.id() + " " + scenario.title() + ": decisions/s (median, min..max)")
            .yAxisTitle("decisions per second")
            .build();
    style(chart);
    chart.getStyler().setLegendVisible(false);
    chart.addSeries(
        "decisions/s",
        runs.stream().map(ContenderRun::name).toList(),
        runs.stream().map(ContenderRun::medianThroughput).toList(),
        runs.stream().map(r -> (r.maxThroughput() - r.minThroughput()) / 2).toList());
    save(chart, file);
  }

  /** p50, p99 and p99.9 latency per contender, on a logarithmic axis. */
  public static void latency(ScenarioResult scenario, Path file) throws IOException {
    List<ContenderRun> runs = scenario.measured();
    List<String> names = runs.stream().map(ContenderRun::name).toList();
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(WIDTH)
            .height(HEIGHT)
            .title(
                scenario.id() + " " + scenario.title() + ": latency percentiles (median of rounds)")
            .yAxisTitle("microseconds (log)")
            .build();
    style(chart);
    // Bars always start at 0, which a log axis cannot show: percentiles are drawn as markers.
    chart.getStyler().setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Scatter);
    chart.getStyler().setMarkerSize(12);
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    for (double p : new double[] {50, 99, 99.9}) {
      chart.addSeries(
          "p" + (p == Math.rint(p) ? Integer.toString((int) p) : Double.toString(p)),
          names,
          runs.stream().map(r -> Math.max(0.1, r.medianPercentileMicros(p))).toList());
    }
    save(chart, file);
  }

  private static void style(CategoryChart chart) {
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    chart.getStyler().setPlotGridVerticalLinesVisible(false);
    chart.getStyler().setXAxisLabelRotation(0);
    chart.getStyler().setAvailableSpaceFill(0.7);
  }

  private static void save(CategoryChart chart, Path file) throws IOException {
    Files.createDirectories(file.getParent());
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
  }
}
