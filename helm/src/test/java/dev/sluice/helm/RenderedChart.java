package dev.sluice.helm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

/**
 * The manifests of one {@code helm template} run, parsed into Jackson trees.
 *
 * <p>Documents are looked up by kind (and name when a kind occurs more than once); a missing or
 * ambiguous lookup fails the test with the list of what was rendered, so a broken template says
 * what it did produce instead of failing on a null.
 */
final class RenderedChart {

  private static final YAMLMapper YAML = new YAMLMapper();

  private final String text;
  private final List<JsonNode> documents;

  private RenderedChart(String text, List<JsonNode> documents) {
    this.text = text;
    this.documents = List.copyOf(documents);
  }

  static RenderedChart parse(String text) {
    List<JsonNode> documents = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(text)) {
      while (it.hasNext()) {
        JsonNode document = it.next();
        // Templates switched off by a condition render as empty documents.
        if (document != null && document.isObject() && document.has("kind")) {
          documents.add(document);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("rendered chart is not valid YAML:\n" + text, e);
    }
    return new RenderedChart(text, documents);
  }

  /** The raw text helm rendered. */
  String text() {
    return text;
  }

  List<JsonNode> documents() {
    return documents;
  }

  /** Kind → names of every rendered document, for assertions and failure messages. */
  Map<String, List<String>> inventory() {
    return documents.stream()
        .collect(
            Collectors.groupingBy(
                d -> d.path("kind").asText(),
                Collectors.mapping(
                    d -> d.path("metadata").path("name").asText(), Collectors.toList())));
  }

  boolean has(String kind) {
    return documents.stream().anyMatch(d -> kind.equals(d.path("kind").asText()));
  }

  List<JsonNode> all(String kind) {
    return documents.stream().filter(d -> kind.equals(d.path("kind").asText())).toList();
  }

  /** The only document of this kind. */
  JsonNode one(String kind) {
    List<JsonNode> found = all(kind);
    if (found.size() != 1) {
      throw new AssertionError(
          "expected exactly one " + kind + " but found " + found.size() + " in " + inventory());
    }
    return found.get(0);
  }

  /** The document of this kind and name. */
  JsonNode named(String kind, String name) {
    return all(kind).stream()
        .filter(d -> name.equals(d.path("metadata").path("name").asText()))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no " + kind + " named " + name + " in " + inventory()));
  }

  /** The port called {@code name} on the Service {@code service}. */
  JsonNode servicePort(String service, String name) {
    for (JsonNode port : named("Service", service).path("spec").path("ports")) {
      if (name.equals(port.path("name").asText())) {
        return port;
      }
    }
    throw new AssertionError("no port " + name + " on the Service " + service);
  }

  /** The NetworkPolicy's ingress rules, each as the ports it admits. */
  List<List<String>> ingressRulePorts() {
    List<List<String>> rules = new ArrayList<>();
    for (JsonNode rule : one("NetworkPolicy").path("spec").path("ingress")) {
      rules.add(rule.path("ports").findValuesAsText("port"));
    }
    return rules;
  }

  /** The grid node container of the StatefulSet's pod template. */
  JsonNode gridNodeContainer() {
    return container(one("StatefulSet").path("spec").path("template"), "grid-node");
  }

  static JsonNode container(JsonNode podTemplateOrPod, String name) {
    JsonNode spec = podTemplateOrPod.has("spec") ? podTemplateOrPod.path("spec") : podTemplateOrPod;
    return StreamSupport.stream(spec.path("containers").spliterator(), false)
        .filter(c -> name.equals(c.path("name").asText()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no container " + name + " in " + spec));
  }

  /** Environment variables of a container, name → the whole entry (value or valueFrom). */
  static Map<String, JsonNode> env(JsonNode container) {
    Map<String, JsonNode> env = new java.util.LinkedHashMap<>();
    for (JsonNode entry : container.path("env")) {
      JsonNode previous = env.put(entry.path("name").asText(), entry);
      if (previous != null) {
        throw new AssertionError("env var " + entry.path("name").asText() + " set twice");
      }
    }
    return env;
  }

  /** Labels as a plain map, for subset assertions between selectors and labels. */
  static Map<String, String> stringMap(JsonNode node) {
    Map<String, String> map = new java.util.LinkedHashMap<>();
    node.properties().forEach(e -> map.put(e.getKey(), e.getValue().asText()));
    return map;
  }
}
