package dev.sluice.helm;

import static java.util.stream.Collectors.joining;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Renders {@code helm/sluice} with the helm library that helm-java bundles: the same code as {@code
 * helm template} and {@code helm lint}, without a helm binary or a cluster.
 *
 * <p>Each call builds a fresh command, so scenarios do not leak values into each other. Values are
 * given the way an operator would give them on the command line ({@code --set key=value}, {@code
 * --set-file key=path}).
 */
final class SluiceChart {

  static final String RELEASE = "rl";
  static final String NAMESPACE = "limits";

  /** The Kubernetes version templates render for (helm-java defaults to an old 1.20). */
  static final String KUBE_VERSION = "1.31.0";

  /** The chart directory; surefire runs with the module directory as working directory. */
  static final Path CHART_DIR = Path.of("sluice").toAbsolutePath();

  /** Answers the chart's {@code lookup} calls; see {@link FakeKubernetesApi} for why. */
  static final FakeKubernetesApi CLUSTER = FakeKubernetesApi.start();

  private final Map<String, Object> sets = new LinkedHashMap<>();
  private final Map<String, Path> setFiles = new LinkedHashMap<>();
  private final List<String> valuesFiles = new ArrayList<>();
  private String kubeVersion = KUBE_VERSION;

  private SluiceChart() {
    if (!Files.isRegularFile(CHART_DIR.resolve("Chart.yaml"))) {
      throw new IllegalStateException("no chart at " + CHART_DIR);
    }
  }

  static SluiceChart withDefaults() {
    return new SluiceChart();
  }

  /**
   * Like {@code --set key=value} for one scalar: numbers and booleans are typed, the rest are
   * strings. helm-java escapes the value, so {@code {a,b}} lists do not work: use {@link
   * #values(String)}.
   */
  SluiceChart set(String key, Object value) {
    sets.put(key, value);
    return this;
  }

  /** Like {@code --set-file key=path}: the value is the file's content as a string. */
  SluiceChart setFile(String key, Path file) {
    setFiles.put(key, file);
    return this;
  }

  /**
   * Like {@code --kube-version}: the cluster version the templates see in {@code .Capabilities}.
   */
  SluiceChart kubeVersion(String version) {
    this.kubeVersion = version;
    return this;
  }

  /** Like {@code -f values.yaml}; later files win, and {@code --set} wins over every file. */
  SluiceChart values(String yaml) {
    valuesFiles.add(yaml);
    return this;
  }

  RenderedChart render() {
    return RenderedChart.parse(template().call());
  }

  /** Renders and returns helm's error instead; fails the test when rendering succeeds. */
  String renderError() {
    String output;
    try {
      output = template().call();
    } catch (RuntimeException e) {
      return String.valueOf(e.getMessage());
    }
    throw new AssertionError(
        "expected helm to reject " + sets + " " + valuesFiles + " but it rendered:\n" + output);
  }

  /**
   * Renders a copy of the chart in which the {@code helm test} hook and NOTES.txt become plain
   * manifests. helm-java returns only the release manifest (hooks and notes are left out), so this
   * is how the test pod and the notes get checked at all: the copy drops the hook annotations and
   * wraps NOTES.txt in a ConfigMap named {@value #NOTES_CONFIGMAP}, whose {@code notes} key is the
   * rendered text.
   */
  RenderedChart renderWithHooksAndNotes() {
    Path copy = copyChartForRendering();
    try {
      return RenderedChart.parse(template(copy).call());
    } finally {
      deleteRecursively(copy);
    }
  }

  static final String NOTES_CONFIGMAP = "rendered-notes";

  static LintResult lintStrict() {
    return new Helm(CHART_DIR).lint().strict().call();
  }

  private TemplateCommand template() {
    return template(CHART_DIR);
  }

  private TemplateCommand template(Path chartDir) {
    TemplateCommand command =
        new Helm(chartDir)
            .template()
            .withName(RELEASE)
            .withNamespace(NAMESPACE)
            .withKubeVersion(kubeVersion);
    for (String yaml : valuesFiles) {
      try {
        Path file = Files.createTempFile("sluice-values-", ".yaml");
        file.toFile().deleteOnExit();
        command.withValuesFile(Files.writeString(file, yaml));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    sets.forEach(command::set);
    setFiles.forEach(command::setFile);
    return command;
  }

  private static Path copyChartForRendering() {
    try {
      Path copy = Files.createTempDirectory("sluice-chart-");
      try (Stream<Path> files = Files.walk(CHART_DIR)) {
        for (Path source : (Iterable<Path>) files::iterator) {
          Path target = copy.resolve(CHART_DIR.relativize(source).toString());
          if (Files.isDirectory(source)) {
            Files.createDirectories(target);
          } else if (source.getFileName().toString().equals("NOTES.txt")) {
            String notes = Files.readString(source);
            String indented = notes.lines().map(line -> "    " + line).collect(joining("\n"));
            Files.writeString(
                target.resolveSibling("zz-notes.yaml"),
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "
                    + NOTES_CONFIGMAP
                    + "\ndata:\n  notes: |\n"
                    + indented
                    + "\n");
          } else if (source.startsWith(CHART_DIR.resolve("templates"))) {
            String unhooked =
                Files.readString(source)
                    .lines()
                    .filter(line -> !line.contains("helm.sh/hook"))
                    .collect(joining("\n", "", "\n"));
            Files.writeString(target, unhooked);
          } else {
            Files.copy(source, target);
          }
        }
      }
      return copy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
