package dev.sluice.node.envoy;

import dev.sluice.core.Durations;
import dev.sluice.core.InvalidPolicyException;
import dev.sluice.core.Policy;
import dev.sluice.core.config.ConfigFileException;
import dev.sluice.core.config.StrictYaml;
import dev.sluice.core.spec.LimitSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Loads envoyproxy/ratelimit config files into an {@link EnvoyConfig}, refusing what the peer
 * refuses, and more that it would silently misread, with the file, line and field of every error.
 *
 * <p>A path is one YAML file, or a directory whose {@code *.yaml} and {@code *.yml} files are read
 * in name order (names starting with a dot are skipped: a Kubernetes ConfigMap volume keeps its
 * versions in {@code ..data} and {@code ..2026_...} beside the files). Each file holds one domain,
 * and two files may not hold the same one.
 *
 * <h2>What is refused, as in the peer</h2>
 *
 * An empty {@code domain}; a descriptor without a {@code key}; two descriptors of one level with
 * the same key and value; a unit that is not {@code second}, {@code minute}, {@code hour}, {@code
 * day}, {@code week}, {@code month} or {@code year}; a unit on an {@code unlimited} limit; an empty
 * {@code replaces} entry, or one naming its own limit; {@code share_threshold} on a value without a
 * wildcard; a key the format does not have (the peer's list: it never reads keys it does not know).
 *
 * <h2>What is refused beyond the peer</h2>
 *
 * A key the peer knows in a place it does not read it (the peer accepts {@code unit:} beside {@code
 * key:} and ignores it); a key given twice; a {@code requests_per_unit} beyond the peer's 32 bits
 * or Sluice's largest limit (1,000,000,000); a fraction or text where a number belongs; a unit that
 * Sluice cannot count over ({@code year}: Sluice's windows are at most 30 days); and Sluice's own
 * keys ({@code sluice:}) with values Sluice refuses.
 */
final class EnvoyConfigLoader {
  private static final long MAX_REQUESTS_PER_UNIT = 4_294_967_295L;

  private EnvoyConfigLoader() {}

  /**
   * The config at {@code path}: a file or a directory of files.
   *
   * @throws ConfigFileException naming the file (and line and field) of the first problem
   */
  static EnvoyConfig load(Path path) {
    List<Path> files = files(path);
    Map<String, DescriptorNode> domains = new LinkedHashMap<>();
    Map<String, Policy> rules = new LinkedHashMap<>();
    Map<String, Path> fileOfDomain = new HashMap<>();
    for (Path file : files) {
      StrictYaml.Parsed<EnvoyYaml.File> parsed = StrictYaml.read(file, EnvoyYaml.File.class);
      String domain = domainOf(parsed);
      Path other = fileOfDomain.putIfAbsent(domain, file);
      if (other != null) {
        throw parsed.problem(
            "domain",
            "domain '"
                + domain
                + "' is also the domain of "
                + other
                + "; each domain is in one file (the peer refuses this too)");
      }
      domains.put(domain, tree(parsed, domain, rules));
    }
    return new EnvoyConfig(domains, files, rules);
  }

  /** One config text, e.g. from a test or a chart value. */
  static EnvoyConfig parse(String source, String yaml) {
    StrictYaml.Parsed<EnvoyYaml.File> parsed = StrictYaml.parse(source, yaml, EnvoyYaml.File.class);
    String domain = domainOf(parsed);
    Map<String, Policy> rules = new LinkedHashMap<>();
    return new EnvoyConfig(Map.of(domain, tree(parsed, domain, rules)), List.of(), rules);
  }

  /**
   * The files a path stands for, in the order they are read.
   *
   * @throws ConfigFileException if the path does not exist or a directory cannot be listed
   */
  static List<Path> files(Path path) {
    if (Files.isRegularFile(path)) {
      return List.of(path);
    }
    if (!Files.isDirectory(path)) {
      throw new ConfigFileException(path.toString(), 0, 0, null, "no such file or directory", null);
    }
    try (Stream<Path> listed = Files.list(path)) {
      return listed.filter(EnvoyConfigLoader::isConfigFile).sorted().toList();
    } catch (IOException e) {
      throw new ConfigFileException(
          path.toString(), 0, 0, null, "cannot list the directory: " + e.getMessage(), e);
    }
  }

  private static boolean isConfigFile(Path file) {
    String name = file.getFileName().toString();
    String lower = name.toLowerCase(Locale.ROOT);
    return !name.startsWith(".")
        && (lower.endsWith(".yaml") || lower.endsWith(".yml"))
        && Files.isRegularFile(file);
  }

  private static String domainOf(StrictYaml.Parsed<EnvoyYaml.File> parsed) {
    String domain = text(parsed.value().domain());
    if (domain.isEmpty()) {
      throw parsed.problem(
          "domain",
          "is required: the domain Envoy's rate limit filter names (the peer refuses an"
              + " empty one too)");
    }
    return domain;
  }

  /** The domain's tree; the rule of each counted limit goes into {@code rules}. */
  private static DescriptorNode tree(
      StrictYaml.Parsed<EnvoyYaml.File> parsed, String domain, Map<String, Policy> rules) {
    EnvoyYaml.File file = parsed.value();
    String defaultAlgorithm = file.sluice() == null ? null : file.sluice().algorithm();
    if (defaultAlgorithm != null) {
      try {
        SluiceCounting.policy(1, Duration.ofSeconds(1), defaultAlgorithm, null, null, false, null);
      } catch (InvalidPolicyException e) {
        throw parsed.problem("sluice.algorithm", LimitSpec.problem(e));
      }
    }
    DescriptorNode.Builder root = DescriptorNode.Builder.root();
    new Level(parsed, defaultAlgorithm, domain, rules)
        .addAll("descriptors", file.descriptors(), root, "");
    return root.build();
  }

  /**
   * Compiles the descriptors of one file, level by level.
   *
   * @param rules where each counted limit's rule goes, by name
   */
  private record Level(
      StrictYaml.Parsed<EnvoyYaml.File> parsed,
      @Nullable String defaultAlgorithm,
      String domain,
      Map<String, Policy> rules) {

    /**
     * @param descriptorPath the levels above, as {@code key=value|key=value} (escaped): what names
     *     a limit's rule, whatever the limit says
     */
    void addAll(
        String path,
        @Nullable List<EnvoyYaml.Descriptor> descriptors,
        DescriptorNode.Builder parent,
        String descriptorPath) {
      if (descriptors == null) {
        return;
      }
      Map<String, Integer> seen = new HashMap<>();
      for (int i = 0; i < descriptors.size(); i++) {
        String at = path + "[" + i + "]";
        EnvoyYaml.Descriptor descriptor = descriptors.get(i);
        if (descriptor == null) {
          throw parsed.problem(at, "is empty; a descriptor is a mapping with at least a key");
        }
        String key = text(descriptor.key());
        if (key.isEmpty()) {
          throw parsed.problem(
              at + ".key", "is required: every descriptor has a key (the peer refuses this too)");
        }
        String value = text(descriptor.value());
        Integer first = seen.putIfAbsent(key + '\u0000' + value, i);
        if (first != null) {
          throw parsed.problem(
              at,
              "duplicate descriptor: key '"
                  + key
                  + "'"
                  + (value.isEmpty() ? " without a value" : " with value '" + value + "'")
                  + " is already "
                  + path
                  + "["
                  + first
                  + "]; merge the two (the peer refuses this too)");
        }
        boolean shareThreshold = flag(descriptor.shareThreshold());
        if (shareThreshold && !Wildcard.isPattern(value)) {
          throw parsed.problem(
              at + ".share_threshold",
              "applies to wildcard values only (with '*'), and the value here is "
                  + (value.isEmpty() ? "empty" : "'" + value + "'"));
        }
        String here =
            (descriptorPath.isEmpty() ? "" : descriptorPath + "|")
                + EnvoyConfig.escape(key)
                + "="
                + EnvoyConfig.escape(value);
        Limit limit =
            descriptor.rateLimit() == null
                ? null
                : limit(at, descriptor, descriptor.rateLimit(), here);
        DescriptorNode.Builder node =
            new DescriptorNode.Builder(limit, flag(descriptor.valueToMetric()), shareThreshold);
        addAll(at + ".descriptors", descriptor.descriptors(), node, here);
        parent.add(key, value, node);
      }
    }

    private Limit limit(
        String at, EnvoyYaml.Descriptor descriptor, EnvoyYaml.RateLimit rate, String here) {
      String path = at + ".rate_limit";
      boolean unlimited = flag(rate.unlimited());
      String unitText = text(rate.unit());
      LimitUnit unit = null;
      if (!unitText.isEmpty()) {
        unit =
            LimitUnit.fromFile(unitText)
                .orElseThrow(
                    () ->
                        parsed.problem(
                            path + ".unit",
                            "invalid rate limit unit '"
                                + unitText
                                + "'; the units are "
                                + LimitUnit.NAMES));
      }
      if (unlimited && unit != null) {
        throw parsed.problem(
            path + ".unit",
            "should not be given with unlimited: true, which counts nothing; remove it (the peer"
                + " refuses this too)");
      }
      if (!unlimited && unit == null) {
        throw parsed.problem(
            path + ".unit", "is required unless unlimited: true; the units are " + LimitUnit.NAMES);
      }
      long requestsPerUnit = rate.requestsPerUnit() == null ? 0 : rate.requestsPerUnit();
      if (requestsPerUnit < 0 || requestsPerUnit > MAX_REQUESTS_PER_UNIT) {
        throw parsed.problem(
            path + ".requests_per_unit",
            "must be from 0 (block every request) to "
                + MAX_REQUESTS_PER_UNIT
                + ", was "
                + requestsPerUnit);
      }
      String name = text(rate.name());
      List<String> replaces = replaces(path, name, rate.replaces());
      boolean shadow = flag(descriptor.shadowMode());
      if (unlimited) {
        if (rate.sluice() != null) {
          throw parsed.problem(
              path + ".sluice", "an unlimited limit counts nothing; remove these settings");
        }
        return new Limit(
            requestsPerUnit,
            LimitUnit.SECOND,
            name,
            true,
            shadow,
            flag(descriptor.quotaMode()),
            flag(descriptor.detailedMetric()),
            replaces,
            null,
            null);
      }
      Policy policy =
          requestsPerUnit == 0 ? null : policy(path, rate, unit, requestsPerUnit, shadow);
      String rule = null;
      if (policy != null) {
        rule = SluiceCounting.ruleName(domain, here);
        rules.put(rule, policy);
      }
      return new Limit(
          requestsPerUnit,
          unit,
          name,
          false,
          shadow,
          flag(descriptor.quotaMode()),
          flag(descriptor.detailedMetric()),
          replaces,
          policy,
          rule);
    }

    private List<String> replaces(
        String path, String name, @Nullable List<EnvoyYaml.Replaces> replaces) {
      if (replaces == null) {
        return List.of();
      }
      List<String> names = new ArrayList<>();
      for (int j = 0; j < replaces.size(); j++) {
        String at = path + ".replaces[" + j + "]";
        EnvoyYaml.Replaces entry = replaces.get(j);
        String replaced = entry == null ? "" : text(entry.name());
        if (replaced.isEmpty()) {
          throw parsed.problem(
              at + ".name", "should not be empty: name the limit this one replaces");
        }
        if (replaced.equals(name)) {
          throw parsed.problem(
              at + ".name",
              "replaces should not contain the name of its own limit ('"
                  + name
                  + "'; the peer refuses this too)");
        }
        names.add(replaced);
      }
      return names;
    }

    private Policy policy(
        String path, EnvoyYaml.RateLimit rate, LimitUnit unit, long limit, boolean shadow) {
      EnvoyYaml.SluiceLimit extra = rate.sluice();
      Duration window = unit.window();
      if (extra != null && extra.window() != null) {
        try {
          window = Durations.parse("window", extra.window());
        } catch (InvalidPolicyException e) {
          throw parsed.problem(path + ".sluice.window", LimitSpec.problem(e));
        }
      } else if (window.compareTo(dev.sluice.core.Limit.MAX_WINDOW) > 0) {
        throw parsed.problem(
            path + ".unit",
            unit.fileName()
                + ": Sluice counts over windows of at most 30 days, so it cannot count per "
                + unit.fileName()
                + "; write the limit per month, or give sluice.window");
      }
      String algorithm =
          extra != null && extra.algorithm() != null ? extra.algorithm() : defaultAlgorithm;
      try {
        return SluiceCounting.policy(
            limit,
            window,
            algorithm,
            extra == null ? null : extra.burst(),
            extra == null ? null : extra.buckets(),
            shadow,
            extra == null ? null : extra.onDenied());
      } catch (InvalidPolicyException e) {
        String field =
            switch (e.field()) {
              case "limit" -> "requests_per_unit";
              case "window" -> extra != null && extra.window() != null ? "sluice.window" : "unit";
              case "algorithm" ->
                  extra != null && extra.algorithm() != null ? "sluice.algorithm" : null;
              case "onDenied" -> "sluice.on_denied";
              default -> "sluice." + e.field();
            };
        if (field == null) {
          throw parsed.problem("sluice.algorithm", LimitSpec.problem(e));
        }
        throw parsed.problem(path + "." + field, LimitSpec.problem(e));
      }
    }
  }

  private static boolean flag(@Nullable Boolean value) {
    return value != null && value;
  }

  private static String text(@Nullable String value) {
    return value == null ? "" : value;
  }
}
