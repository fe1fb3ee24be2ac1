/**
 * Deliberate architecture violations and their compliant neighbours, imported class by class by
 * {@code ArchitectureRulesSelfTest} and never run. The {@code archfixtures} subpackages of each module's
 * package hold the fixtures that must sit in that module's package to be judged by its rules.
 */
package dev.postern.archfixtures;
