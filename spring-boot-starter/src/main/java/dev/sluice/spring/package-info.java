/**
 * The Sluice Spring Boot starter: start at {@link dev.sluice.spring.SluiceAutoConfiguration} (what
 * the starter gives an application) and {@link dev.sluice.spring.SluiceProperties} ({@code
 * sluice.*}); docs/spring.md is the user's guide.
 */
@NullMarked
package dev.sluice.spring;

import org.jspecify.annotations.NullMarked;
