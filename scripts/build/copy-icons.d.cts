/** Types of copy-icons.cjs (for its test). */
export declare function copyIcons(root: string): string[];
