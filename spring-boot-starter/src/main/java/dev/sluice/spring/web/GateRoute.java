package dev.sluice.spring.web;

import dev.sluice.core.InvalidPolicyException;
import dev.sluice.spring.GateProperties;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Which requests a gate limits: a path that matches one of its patterns (Spring's {@link
 * PathPattern}: {@code /login}, {@code /api/**}) and, if the gate names methods, one of those.
 */
record GateRoute(List<PathPattern> paths, Set<String> methods) {

  static GateRoute of(String name, GateProperties gate) {
    if (gate.paths().isEmpty()) {
      throw new InvalidPolicyException(name + ".paths", "give at least one path pattern");
    }
    List<PathPattern> paths =
        GateFactory.at(
            name + ".paths",
            () -> gate.paths().stream().map(PathPatternParser.defaultInstance::parse).toList());
    Set<String> methods =
        gate.methods().stream()
            .map(method -> method.trim().toUpperCase(Locale.ROOT))
            .collect(Collectors.toUnmodifiableSet());
    return new GateRoute(paths, methods);
  }

  /** Whether a request of {@code method} to {@code path} (within the application) is limited. */
  boolean matches(String method, String path) {
    if (!methods.isEmpty() && !methods.contains(method)) {
      return false;
    }
    PathContainer container = PathContainer.parsePath(path);
    for (PathPattern pattern : paths) {
      if (pattern.matches(container)) {
        return true;
      }
    }
    return false;
  }
}
