/**
 * One strict reader for every YAML configuration file: {@link dev.sluice.core.config.StrictYaml}
 * binds a file to Java records and refuses what it does not understand, and {@link
 * dev.sluice.core.config.ConfigFileException} says where and what in the form editors understand
 * ({@code envoy.yaml:7:12: descriptors[1].rate_limit.unit: ...}).
 *
 * <p>Start with {@link dev.sluice.core.config.StrictYaml}. A format's own checks (a bad unit, a
 * duplicate name) run after binding and report through {@link
 * dev.sluice.core.config.YamlLocations}, which knows the line and column of every field of the
 * file. Named settings that an environment variable may override (a grid node's) are read through
 * {@link dev.sluice.core.config.LayeredSettings}, whose errors name the variable or the file's
 * line.
 */
@NullMarked
package dev.sluice.core.config;

import org.jspecify.annotations.NullMarked;
