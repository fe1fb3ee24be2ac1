/** The credential store adapter: secrets from environment variables and owner-only files. */
package dev.postern.app.credentials;
