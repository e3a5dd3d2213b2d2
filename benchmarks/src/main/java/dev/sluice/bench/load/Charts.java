package dev.sluice.bench.load;

import dev.sluice.bench.load.exactness.Exactness;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.style.Styler;

/**
 * The report's PNG plots, drawn with XChart: throughput bars, latency percentiles, and where a
 * scenario counts it, over-admission beside throughput.
 */
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
    style(chart, runs.size());
    chart.getStyler().setLegendVisible(false);
    chart.addSeries(
        "decisions/s",
        runs.stream().map(ContenderRun::name).toList(),
        runs.stream().map(ContenderRun::medianThroughput).toList(),
        runs.stream().map(r -> (r.maxThroughput() - r.minThroughput()) / 2).toList());
    save(chart, file);
  }

  /**
   * Exactness beside throughput, one image of three panels: decisions/s and admitted/s (medians)
   * and over-admitted (every measured round's, summed, as the table gives it). Each contender is
   * one coloured series, in the same order and colour in every panel, named in the last panel's
   * legend; bars carry their value, so a zero reads as zero. Separate panels, because on a
   * saturated key decisions/s and admitted/s differ by orders of magnitude.
   */
  public static void exactness(ScenarioResult scenario, Path file) throws IOException {
    List<ContenderRun> runs =
        scenario.measured().stream().filter(r -> r.exactness().isPresent()).toList();
    int panelWidth = WIDTH * 2 / 3;
    CategoryChart decisions =
        panel(
            scenario.id() + ": decisions/s (median round)",
            panelWidth,
            runs,
            ContenderRun::medianThroughput);
    CategoryChart admitted =
        panel(
            scenario.id() + ": admitted/s (median round)",
            panelWidth,
            runs,
            ContenderRun::medianAdmitted);
    // The last panel also holds the legend, so it is wider by the legend's width.
    CategoryChart over =
        panel(
            scenario.id() + ": over-admitted (all rounds)",
            panelWidth + 320,
            runs,
            run -> run.exactness().map(Exactness::overAdmitted).orElse(0L));
    over.getStyler().setLegendVisible(true);
    over.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    saveSideBySide(List.of(decisions, admitted, over), file);
  }

  /** Charts of different widths in one PNG, left to right (XChart's grid makes cells equal). */
  private static void saveSideBySide(List<CategoryChart> charts, Path file) throws IOException {
    int width = charts.stream().mapToInt(CategoryChart::getWidth).sum();
    int height = charts.stream().mapToInt(CategoryChart::getHeight).max().orElse(HEIGHT);
    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      int x = 0;
      for (CategoryChart chart : charts) {
        g.drawImage(BitmapEncoder.getBufferedImage(chart), x, 0, null);
        x += chart.getWidth();
      }
    } finally {
      g.dispose();
    }
    Files.createDirectories(file.getParent());
    ImageIO.write(image, "png", file.toFile());
  }

  private static CategoryChart panel(
      String title, int width, List<ContenderRun> runs, ToDoubleFunction<ContenderRun> metric) {
    CategoryChart chart =
        new CategoryChartBuilder().width(width).height(HEIGHT).title(title).build();
    style(chart, 1);
    chart.getStyler().setLegendVisible(false);
    chart.getStyler().setLabelsVisible(true);
    chart.getStyler().setLabelsRotation(90);
    chart.getStyler().setDecimalPattern("#,##0");
    chart.getStyler().setYAxisDecimalPattern("#,##0");
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setXAxisTicksVisible(false);
    for (ContenderRun run : runs) {
      chart.addSeries(run.name(), List.of(" "), List.of(metric.applyAsDouble(run)));
    }
    return chart;
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
    style(chart, names.size());
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

  private static void style(CategoryChart chart, int categories) {
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    chart.getStyler().setPlotGridVerticalLinesVisible(false);
    // Beyond four contenders their names no longer fit side by side.
    chart.getStyler().setXAxisLabelRotation(categories > 4 ? 20 : 0);
    chart.getStyler().setAvailableSpaceFill(0.7);
  }

  private static void save(CategoryChart chart, Path file) throws IOException {
    Files.createDirectories(file.getParent());
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
  }
}
