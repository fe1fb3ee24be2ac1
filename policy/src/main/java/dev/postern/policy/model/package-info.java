/**
 * The policy as the kernel holds it: HTTP targets, SSH hosts and SQL databases, each a record that checks itself
 * when built, so that a policy which exists is a policy that makes sense. The app module builds
 * these from the configuration file; the kernel never reads a file. JDK only.
 */
package dev.postern.policy.model;
