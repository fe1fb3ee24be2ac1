/**
 * Network facts the kernel shares with every executor that dials: the table of address ranges a
 * target may or may not reach. JDK only; no adapter library.
 */
package dev.postern.policy.net;
