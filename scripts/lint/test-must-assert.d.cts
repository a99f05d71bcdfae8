/** Types of the ESLint plugin in test-must-assert.cjs (for the rule's own test). */
import type { Rule } from 'eslint';

declare const plugin: { rules: { 'must-assert': Rule.RuleModule }; mustAssert: Rule.RuleModule };
export = plugin;
