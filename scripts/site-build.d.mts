/** Types of scripts/site-build.mjs (a plain script: it runs before tsx is installed). */
export declare const ROOT: string;
export declare const SITE_DIR: string;
export declare const SITE_MANIFEST: string;
export declare function siteBuildStale(): boolean;
export declare function ensureSiteBuild(options?: { quiet?: boolean }): boolean;
