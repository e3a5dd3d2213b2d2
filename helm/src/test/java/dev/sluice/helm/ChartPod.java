package dev.sluice.helm;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.StreamSupport;

/**
 * The grid-node pod of a rendered chart, turned into the {@code podman run} options that give the
 * container what the kubelet would: its environment (values, the pod's IP and namespace, the
 * Secret's token), its user and security settings, its volumes, its memory limit and its arguments;
 * and its probes, ports, grace period and preStop hook, for the test to act out.
 *
 * <p>It refuses what it cannot act out (another kind of volume, a {@code subPath}, an unknown
 * security or container field) instead of leaving it out, so a chart change shows up here before it
 * could pass untried.
 */
final class ChartPod {

  private static final Set<String> CONTAINER_FIELDS =
      Set.of(
          "name",
          "image",
          "imagePullPolicy",
          "args",
          "ports",
          "env",
          "startupProbe",
          "livenessProbe",
          "readinessProbe",
          "lifecycle",
          "resources",
          "securityContext",
          "volumeMounts");
  private static final Set<String> SECURITY_FIELDS =
      Set.of(
          "runAsNonRoot",
          "runAsUser",
          "runAsGroup",
          "fsGroup",
          "seccompProfile",
          "readOnlyRootFilesystem",
          "allowPrivilegeEscalation",
          "capabilities");

  private final RenderedChart chart;
  private final JsonNode podSpec;
  private final JsonNode container;

  ChartPod(RenderedChart chart) {
    this.chart = chart;
    this.podSpec = chart.one("StatefulSet").path("spec").path("template").path("spec");
    this.container = chart.gridNodeContainer();
    requireOnly(container, CONTAINER_FIELDS, "grid-node container");
  }

  /**
   * Options for {@code podman run} (before the image): the pod's IP is {@code podIp}, and ConfigMap
   * volumes are written under {@code scratch}.
   */
  List<String> runOptions(String podName, String podIp, Path scratch) {
    List<String> options = new ArrayList<>();
    options.addAll(security());
    options.addAll(environment(podName, podIp));
    options.addAll(volumes(scratch));
    JsonNode limits = container.path("resources").path("limits");
    if (limits.has("memory")) {
      options.addAll(List.of("--memory", Long.toString(bytes(limits.path("memory").asText()))));
    }
    if (limits.has("cpu")) {
      options.addAll(List.of("--cpus", cpus(limits.path("cpu").asText())));
    }
    return options;
  }

  /** The container's arguments, after the image (the entrypoint is the image's). */
  List<String> args() {
    return strings(container.path("args"));
  }

  int terminationGracePeriodSeconds() {
    // Kubernetes' default when the pod spec leaves it out.
    return podSpec.path("terminationGracePeriodSeconds").asInt(30);
  }

  /** The preStop hook: null for none; else its {@code sleep}, {@code exec} or {@code httpGet}. */
  JsonNode preStop() {
    JsonNode hook = container.path("lifecycle").path("preStop");
    return hook.isMissingNode() ? null : hook;
  }

  /** A probe ({@code startupProbe}, {@code livenessProbe}, {@code readinessProbe}). */
  Probe probe(String name) {
    JsonNode probe = container.path(name);
    if (probe.isMissingNode()) {
      return null;
    }
    JsonNode get = probe.path("httpGet");
    if (get.isMissingNode() || !get.path("scheme").asText("HTTP").equals("HTTP")) {
      throw new AssertionError("only plain httpGet probes can be acted out: " + probe);
    }
    return new Probe(
        get.path("path").asText("/"),
        port(get.path("port").asText()),
        probe.path("initialDelaySeconds").asInt(0),
        probe.path("periodSeconds").asInt(10),
        probe.path("timeoutSeconds").asInt(1),
        probe.path("failureThreshold").asInt(3));
  }

  record Probe(
      String path,
      int port,
      int initialDelaySeconds,
      int periodSeconds,
      int timeoutSeconds,
      int failureThreshold) {}

  /** A container port by its name (or a number given as such). */
  int port(String nameOrNumber) {
    if (nameOrNumber.chars().allMatch(Character::isDigit)) {
      return Integer.parseInt(nameOrNumber);
    }
    return StreamSupport.stream(container.path("ports").spliterator(), false)
        .filter(p -> nameOrNumber.equals(p.path("name").asText()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no container port named " + nameOrNumber))
        .path("containerPort")
        .asInt();
  }

  /** The uid and gid the container runs as (container settings over the pod's). */
  String user() {
    return securityLong("runAsUser") + ":" + securityLong("runAsGroup");
  }

  private List<String> security() {
    JsonNode pod = podSpec.path("securityContext");
    JsonNode own = container.path("securityContext");
    requireOnly(pod, SECURITY_FIELDS, "pod securityContext");
    requireOnly(own, SECURITY_FIELDS, "container securityContext");
    List<String> options = new ArrayList<>();
    if (securityFlag("runAsNonRoot") && securityLong("runAsUser") == 0) {
      throw new AssertionError("runAsNonRoot with runAsUser 0: Kubernetes would refuse the pod");
    }
    options.addAll(List.of("--user", user()));
    if (pod.has("fsGroup")) {
      // The kubelet adds fsGroup to the container's groups and gives it the volumes.
      options.addAll(List.of("--group-add", pod.path("fsGroup").asText()));
    }
    if (securityFlag("readOnlyRootFilesystem")) {
      // Without --read-only-tmpfs=false podman would add writable /tmp, /var/tmp and /run of its
      // own; the chart's volumes must be the only writable places.
      options.addAll(List.of("--read-only", "--read-only-tmpfs=false"));
    }
    if (!securityFlag("allowPrivilegeEscalation", true)) {
      options.addAll(List.of("--security-opt", "no-new-privileges"));
    }
    for (JsonNode capability : securitySetting("capabilities").path("drop")) {
      options.addAll(List.of("--cap-drop", capability.asText()));
    }
    for (JsonNode capability : securitySetting("capabilities").path("add")) {
      options.addAll(List.of("--cap-add", capability.asText()));
    }
    String seccomp = securitySetting("seccompProfile").path("type").asText("RuntimeDefault");
    switch (seccomp) {
      case "RuntimeDefault" -> {} // podman's default profile
      case "Unconfined" -> options.addAll(List.of("--security-opt", "seccomp=unconfined"));
      default -> throw new AssertionError("seccompProfile " + seccomp + " cannot be acted out");
    }
    return options;
  }

  private List<String> environment(String podName, String podIp) {
    List<String> options = new ArrayList<>();
    for (Map.Entry<String, JsonNode> variable : RenderedChart.env(container).entrySet()) {
      options.addAll(
          List.of("--env", variable.getKey() + "=" + value(variable.getValue(), podName, podIp)));
    }
    return options;
  }

  private String value(JsonNode entry, String podName, String podIp) {
    if (entry.has("value")) {
      return entry.path("value").asText();
    }
    JsonNode from = entry.path("valueFrom");
    if (from.has("fieldRef")) {
      String field = from.path("fieldRef").path("fieldPath").asText();
      return switch (field) {
        case "status.podIP" -> podIp;
        case "metadata.name" -> podName;
        case "metadata.namespace" -> SluiceChart.NAMESPACE;
        default -> throw new AssertionError("cannot act out fieldRef " + field);
      };
    }
    if (from.has("secretKeyRef")) {
      JsonNode ref = from.path("secretKeyRef");
      JsonNode data = chart.named("Secret", ref.path("name").asText()).path("data");
      return new String(
          Base64.getDecoder().decode(data.path(ref.path("key").asText()).asText()),
          StandardCharsets.UTF_8);
    }
    if (from.has("configMapKeyRef")) {
      JsonNode ref = from.path("configMapKeyRef");
      return chart
          .named("ConfigMap", ref.path("name").asText())
          .path("data")
          .path(ref.path("key").asText())
          .asText();
    }
    throw new AssertionError("cannot act out env entry " + entry);
  }

  private List<String> volumes(Path scratch) {
    List<String> options = new ArrayList<>();
    for (JsonNode mount : container.path("volumeMounts")) {
      if (mount.has("subPath") || mount.has("subPathExpr")) {
        throw new AssertionError("subPath mounts cannot be acted out: " + mount);
      }
      String name = mount.path("name").asText();
      String path = mount.path("mountPath").asText();
      JsonNode volume = volume(name);
      if (volume.has("emptyDir")) {
        // An emptyDir: writable by everyone (0777), executable (a JNI library may be unpacked
        // there), as big as its sizeLimit.
        String size =
            volume.path("emptyDir").has("sizeLimit")
                ? ",size=" + bytes(volume.path("emptyDir").path("sizeLimit").asText())
                : "";
        options.addAll(List.of("--tmpfs", path + ":rw,exec,mode=777" + size));
      } else if (volume.has("configMap")) {
        JsonNode source = volume.path("configMap");
        if (source.has("items")) {
          throw new AssertionError("configMap items cannot be acted out: " + volume);
        }
        Path directory = writeConfigMap(source.path("name").asText(), scratch.resolve(name));
        // ConfigMap volumes are read-only whatever the mount says.
        options.addAll(List.of("--volume", directory + ":" + path + ":ro"));
      } else {
        throw new AssertionError("volume kind cannot be acted out: " + volume);
      }
    }
    return options;
  }

  private Path writeConfigMap(String configMap, Path directory) {
    try {
      Files.createDirectories(directory);
      Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
      for (Map.Entry<String, JsonNode> file :
          chart.named("ConfigMap", configMap).path("data").properties()) {
        Path written = directory.resolve(file.getKey());
        Files.writeString(written, file.getValue().asText());
        // The kubelet's defaultMode: 0644.
        Files.setPosixFilePermissions(written, PosixFilePermissions.fromString("rw-r--r--"));
      }
      return directory;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private JsonNode volume(String name) {
    return StreamSupport.stream(podSpec.path("volumes").spliterator(), false)
        .filter(v -> name.equals(v.path("name").asText()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no volume " + name + " for a volumeMount"));
  }

  private JsonNode securitySetting(String field) {
    JsonNode own = container.path("securityContext").path(field);
    return own.isMissingNode() ? podSpec.path("securityContext").path(field) : own;
  }

  private boolean securityFlag(String field) {
    return securityFlag(field, false);
  }

  private boolean securityFlag(String field, boolean otherwise) {
    JsonNode value = securitySetting(field);
    return value.isMissingNode() ? otherwise : value.asBoolean();
  }

  private long securityLong(String field) {
    JsonNode value = securitySetting(field);
    if (value.isMissingNode()) {
      throw new AssertionError("the chart sets no " + field + "; the test needs one to run as");
    }
    return value.asLong();
  }

  private static void requireOnly(JsonNode node, Set<String> known, String what) {
    for (Map.Entry<String, JsonNode> field : node.properties()) {
      if (!known.contains(field.getKey())) {
        throw new AssertionError(
            what + " has " + field.getKey() + ", which the container test does not act out yet");
      }
    }
  }

  private static List<String> strings(JsonNode array) {
    List<String> strings = new ArrayList<>();
    array.forEach(item -> strings.add(item.asText()));
    return strings;
  }

  /** A Kubernetes quantity of bytes ({@code 64Mi}, {@code 1Gi}, {@code 500M}, {@code 1024}). */
  static long bytes(String quantity) {
    String[][] suffixes = {
      {"Ki", "1024"}, {"Mi", "1048576"}, {"Gi", "1073741824"}, {"Ti", "1099511627776"},
      {"k", "1000"}, {"M", "1000000"}, {"G", "1000000000"}, {"T", "1000000000000"}
    };
    for (String[] suffix : suffixes) {
      if (quantity.endsWith(suffix[0])) {
        return new BigDecimal(quantity.substring(0, quantity.length() - suffix[0].length()))
            .multiply(new BigDecimal(suffix[1]))
            .longValueExact();
      }
    }
    return new BigDecimal(quantity).longValueExact();
  }

  /** A Kubernetes CPU quantity ({@code 500m}, {@code 2}) as podman's {@code --cpus}. */
  static String cpus(String quantity) {
    return quantity.endsWith("m")
        ? new BigDecimal(quantity.substring(0, quantity.length() - 1))
            .movePointLeft(3)
            .toPlainString()
        : quantity;
  }
}
