/**
 * HTTP gates from {@code sluice.gates}: thin adapters over the client SDK's one gate.
 *
 * <p>Start with {@link dev.sluice.spring.web.ConfiguredGates}.
 */
@NullMarked
package dev.sluice.spring.web;

import org.jspecify.annotations.NullMarked;
