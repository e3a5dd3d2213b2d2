/** HTTP gates from {@code sluice.gates}: thin adapters over the client SDK's one gate. */
@NullMarked
package dev.sluice.spring.web;

import org.jspecify.annotations.NullMarked;
